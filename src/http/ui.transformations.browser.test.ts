/**
 * Transformations and secrets in chromium against a real server: the code editor with its error
 * line, the test panel (output, logs, error with its line), and secrets by name only.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { openScreen, watchPage } from "../test-utils/browser-checks.ts";
import {
  sidewaysOverflow,
  startUiWorld,
  textOf,
  type UiWorld,
} from "../test-utils/browser-world.ts";
import { callAs } from "../test-utils/endpoints.ts";

let world: UiWorld;
let owner: TestAccount;
let counter = 0;
const unique = (what: string) => `${what} ${++counter}-${Date.now() % 100_000}`;

beforeAll(async () => {
  world = await startUiWorld();
  owner = await signUp(world.server);
}, 60_000);

afterAll(async () => {
  await world?.stop();
});

const watch = (page: Page) => watchPage(world, page);

const open = (page: Page, path: string, heading: string, as: TestAccount = owner) =>
  openScreen(world, page, as, path, heading);

describe("transformations in chromium", () => {
  test("create, a syntax error marked on its line, test output and logs, a runtime error's line, delete", async () => {
    const page = await world.newPage();
    const clean = watch(page);
    const name = unique("Slack text");
    await open(page, "/transformations", "Transformations");
    await page.getByLabel("Name").fill(name);
    await page.getByRole("button", { name: "Create transformation" }).click();
    await page.getByRole("heading", { name, exact: true }).waitFor();

    const code = page.getByLabel("Code");
    await code.fill('addHandler("transform", (request) => {\n  return {\n    text: ;\n  };\n});');
    await page.getByRole("button", { name: "Save transformation" }).click();
    await page.locator('textarea[name="code"][aria-invalid="true"]').waitFor();
    await page
      .getByText(/SyntaxError.*line 3/)
      .first()
      .waitFor();
    expect((await textOf(page.locator(".code-gutter .error-line"))).trim()).toBe("✖3");

    // Tab indents inside the editor.
    await code.fill("");
    await code.press("Tab");
    expect(await code.inputValue()).toBe("  ");

    await code.fill(
      'addHandler("transform", (request) => {\n  console.log("seen", request.body.id);\n  return { text: "order " + request.body.id };\n});',
    );
    await page.getByRole("button", { name: "Save transformation" }).click();
    await page.getByRole("status").getByText(`Transformation “${name}” saved`).waitFor();
    expect(await page.locator(".code-gutter .error-line").count()).toBe(0);

    await page.getByRole("button", { name: "Run test" }).click();
    const result = page.getByRole("region", { name: "Test result" });
    await result.getByTestId("test-output").getByText('"text": "order ord_1"').waitFor();
    await result.getByText("[log] seen ord_1").waitFor();

    await code.fill(
      'addHandler("transform", (request) => {\n  return request.body.missing.id;\n});',
    );
    await page.getByRole("button", { name: "Run test" }).click();
    await result.getByText(/script_error: TypeError.*\(line 2\)/).waitFor();
    expect((await textOf(page.locator(".code-gutter .error-line"))).trim()).toBe("✖2");

    await page.getByRole("button", { name: "Delete transformation" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete transformation" }).click();
    await page.getByRole("heading", { name: "Transformations", exact: true }).waitFor();
    await page.getByRole("link", { name }).waitFor({ state: "detached" });
    await clean();
  });
});

describe("secrets in chromium", () => {
  test("create (a bad name is a 422 at the field), replace a value, delete; values never shown", async () => {
    const page = await world.newPage();
    const clean = watch(page);
    await open(page, "/secrets", "Secrets");
    await page.getByLabel("Secret name").fill("bad name");
    await page.getByLabel("Value", { exact: true }).fill("s3cret-value");
    await page.getByRole("button", { name: "Create secret" }).click();
    await page.locator('input[name="name"][aria-invalid="true"]').waitFor();
    const secretName = `API_TOKEN_${counter++}`;
    await page.getByLabel("Secret name").fill(secretName);
    await page.getByRole("button", { name: "Create secret" }).click();
    const row = page.getByRole("row", { name: new RegExp(`\\{\\{${secretName}\\}\\}`) });
    await row.waitFor();
    expect(await page.content()).not.toContain("s3cret-value");

    await row.getByRole("button", { name: `Replace value of ${secretName}` }).click();
    await page.getByRole("heading", { name: `Replace the value of ${secretName}` }).waitFor();
    await page.getByLabel("Value", { exact: true }).fill("n3w-value");
    await page.getByRole("button", { name: "Replace value", exact: true }).click();
    await page.getByRole("status").getByText(`Secret “${secretName}” replaced`).waitFor();

    await row.getByRole("button", { name: `Delete ${secretName}` }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete secret" }).click();
    await page.getByRole("status").getByText(`Secret “${secretName}” deleted`).waitFor();
    // The list is read again after the notice: the row goes once that answer is in.
    await row.waitFor({ state: "detached" });
    await clean();
  });

  test("a member reads names only, without write buttons, on a small screen in the dark", async () => {
    const made = await callAs(world.server, owner, "POST", "/api/v1/secrets", {
      name: `READ_ME_${counter++}`,
      value: "hidden-value",
    });
    expect(made.status).toBe(201);
    const member = await owner.addMember("member");
    const page = await world.newPage({ width: 375, height: 740, colorScheme: "dark" });
    const clean = watch(page);
    await open(page, "/secrets", "Secrets", member);
    await page
      .getByRole("row", { name: /READ_ME_/ })
      .first()
      .waitFor();
    expect(await page.getByRole("button", { name: /Delete|Replace|Create/ }).count()).toBe(0);
    expect(await page.content()).not.toContain("hidden-value");
    expect(await sidewaysOverflow(page)).toBe(0);
    await page.goto(`${world.server.url}/transformations`);
    await page.getByRole("heading", { name: "Transformations", exact: true }).waitFor();
    expect(await sidewaysOverflow(page)).toBe(0);
    await clean();
  });
});
