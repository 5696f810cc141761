/**
 * The UI's login in chromium: an httpOnly cookie that a new tab and a restarted browser (the same
 * profile's stored cookies) still carry within the token's lifetime, that page scripts cannot
 * read, that drives the live socket, and that logout clears.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp } from "../test-utils/accounts.ts";
import { startUiWorld, type UiWorld } from "../test-utils/browser-world.ts";

let world: UiWorld;

beforeAll(async () => {
  world = await startUiWorld();
}, 60_000);

afterAll(async () => {
  await world?.stop();
});

describe("web UI session in chromium", () => {
  test("login survives a new tab and a browser restart; page scripts never see the token; logout ends it", async () => {
    const account = await signUp(world.server);
    const endpoint = await world.createEndpoint(account, "Session hooks");
    const page = await world.newPage();
    await world.logIn(page, account);

    const [cookie] = (await page.context().cookies()).filter((c) => c.name === "weir_session");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/" });
    // A persistent cookie (not a session one) lasting about the token's lifetime.
    const lifetime = (cookie?.expires ?? 0) - Date.now() / 1000;
    expect(Math.abs(lifetime - world.server.deps.config.jwt_ttl / 1000)).toBeLessThan(120);
    expect(await page.evaluate("document.cookie")).toBe("");
    const stored = await page.evaluate(
      "JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })",
    );
    expect(stored).not.toContain(cookie?.value ?? "?");

    // A new tab of the same browser opens logged in, and its live socket joins with the cookie.
    const tab = await page.context().newPage();
    await tab.goto(`${world.server.url}/endpoints/${endpoint.id}`);
    await tab.locator('[data-live-state="live"]').waitFor();
    const sent = await world.capture(endpoint.slug, { method: "POST", body: "after restart" });
    const { request_id: requestId } = (await sent.json()) as { request_id: string };
    await tab.locator(`[role="option"][data-request-id="${requestId}"]`).waitFor();

    // A restarted browser: a new context holding only what the profile stored on disk.
    const state = await page.context().storageState();
    const restarted = await world.browser.newContext({ storageState: state });
    const again = await restarted.newPage();
    again.setDefaultTimeout(10_000);
    await again.goto(`${world.server.url}/endpoints`);
    await again.getByRole("heading", { name: "Endpoints", exact: true }).waitFor();
    await again.locator(".endpoint-card", { hasText: "Session hooks" }).waitFor();

    // Logout clears the cookie: the next page of that browser asks for a login.
    await again.getByRole("button", { name: "Log out" }).click();
    await again.getByText("You are logged out.").waitFor();
    expect((await restarted.cookies()).some((c) => c.name === "weir_session")).toBe(false);
    const fresh = await restarted.newPage();
    await fresh.goto(`${world.server.url}/endpoints`);
    await fresh.getByRole("heading", { name: "Log in to Weir" }).waitFor();
    await restarted.close();
  }, 60_000);
});
