/**
 * Settings in chromium: the owner renames the organization; a user changes their password, which
 * ends their other sessions while this one goes on; members see no rename.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp } from "../test-utils/accounts.ts";
import { startUiWorld, textOf, type UiWorld } from "../test-utils/browser-world.ts";

let world: UiWorld;

beforeAll(async () => {
  world = await startUiWorld();
}, 60_000);

afterAll(async () => {
  await world?.stop();
});

describe("account settings in chromium", () => {
  test("rename the organization; change the password; other sessions end", async () => {
    const owner = await signUp(world.server, { orgName: "Acme Old" });
    const elsewhere = await world.newPage();
    await world.logIn(elsewhere, owner);
    const page = await world.newPage();
    await world.logIn(page, owner);
    await page.getByRole("link", { name: "Settings", exact: true }).first().click();

    // Rename: the new name shows at once, and comes back after a reload.
    const name = page.getByLabel("Organization name");
    await name.fill("Acme Renamed");
    await page.getByRole("button", { name: "Rename" }).click();
    await page.getByText("Organization renamed.").waitFor();
    await page.locator("dd", { hasText: "Acme Renamed" }).waitFor();
    await page.reload();
    await page.locator("dd", { hasText: "Acme Renamed" }).waitFor();

    // A wrong current password is named on its field; nothing changes.
    await page.getByLabel("Current password").fill("not my password");
    await page.getByLabel("New password").fill("a much better secret");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.locator(".field.invalid", { hasText: "Current password" }).waitFor();
    expect(await textOf(page.locator(".field.invalid .error-text"))).toContain("current password");

    await page.getByLabel("Current password").fill(owner.password);
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("Password changed. Your other sessions have ended.").waitFor();

    // This tab goes on (its cookie was renewed); the other browser's session has ended.
    await page.reload();
    await page.getByRole("heading", { name: "Settings" }).waitFor();
    await elsewhere.reload();
    await elsewhere.getByRole("heading", { name: "Log in to Weir" }).waitFor();
    await world.logIn(elsewhere, { email: owner.email, password: "a much better secret" });
  }, 60_000);

  test("a member sees the organization but cannot rename it", async () => {
    const owner = await signUp(world.server);
    const member = await owner.addMember("member");
    const page = await world.newPage();
    await world.logIn(page, member);
    await page.getByRole("link", { name: "Settings", exact: true }).first().click();
    await page.getByRole("heading", { name: "Your password" }).waitFor();
    expect(await page.getByLabel("Organization name").count()).toBe(0);
  }, 60_000);
});
