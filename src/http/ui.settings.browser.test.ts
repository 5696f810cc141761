/**
 * The web UI in a real browser against a real server: a phone-sized screen, settings (API keys,
 * members, endpoint forward URL and custom response), plan limits, and request actions.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp } from "../test-utils/accounts.ts";
import {
  readClipboard,
  sidewaysOverflow,
  startUiWorld,
  textOf,
  type UiWorld,
  unlabelledControls,
} from "../test-utils/browser-world.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";

const PASSWORD = "correct horse battery";
let world: UiWorld;

beforeAll(async () => {
  world = await startUiWorld();
}, 60_000);

afterAll(async () => {
  await world?.stop();
});

describe("web UI in chromium: a phone, settings and limits", () => {
  test("375 px wide: org switch, endpoint delete, API key shown once, members, logout", async () => {
    const owner = await signUp(world.server, { plan: "team", orgName: "Phone Co" });
    const other = await signUp(world.server, { plan: "team", orgName: "Side Project" });
    const added = await world.server.request(
      `/api/v1/organizations/${other.organizationId}/members`,
      {
        method: "POST",
        headers: { ...other.headers, "content-type": "application/json" },
        body: JSON.stringify({ email: owner.email, role: "admin" }),
      },
    );
    expect(added.status).toBe(201);
    const endpoint = await world.createEndpoint(owner, "Phone hooks");
    await world.capture(endpoint.slug, {
      method: "POST",
      body: '{"from":"phone"}',
      headers: { "content-type": "application/json" },
    });

    const page = await world.newPage({ width: 375, height: 740 });
    await world.logIn(page, owner);
    expect(await sidewaysOverflow(page)).toBe(0);
    expect(await unlabelledControls(page)).toEqual([]);
    const card = page.locator(".endpoint-card", { hasText: "Phone hooks" });
    expect(await textOf(card.locator(".request-count"))).toBe("1");

    // The inspector on a phone: the list, then the request alone with a way back.
    await card.getByRole("link", { name: "Open inspector" }).click();
    await page.locator('[role="option"]').first().click();
    await page.getByRole("button", { name: "← Back to the list" }).waitFor();
    expect(await page.getByRole("listbox").isVisible()).toBe(false);
    expect(await sidewaysOverflow(page)).toBe(0);
    await page.getByRole("button", { name: "← Back to the list" }).click();
    await page.getByRole("listbox").waitFor();

    // Settings: plan limits, an API key shown once with its warning, members.
    await page.getByRole("link", { name: "Settings", exact: true }).first().click();
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    expect(await textOf(page.getByRole("table", { name: "Plan limits" }))).toContain(
      "Debug endpoints\t10",
    );
    expect(await unlabelledControls(page)).toEqual([]);
    await page.getByLabel("Key name").fill("deploy");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = await textOf(page.getByTestId("new-api-key"));
    expect(key).toMatch(/^svc_[A-Za-z0-9]{32}$/);
    expect(await textOf(page.locator(".new-key"))).toContain("shown only once");
    await page.getByRole("button", { name: "Copy key" }).click();
    await pollUntil(async () => (await readClipboard(page)) === key, {
      what: "the key on the clipboard",
    });
    const me = await world.server.request("/api/v1/me", {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(me.status).toBe(200);
    await page.getByRole("button", { name: "I have saved it" }).click();
    expect(await page.getByTestId("new-api-key").count()).toBe(0);
    await page.getByRole("button", { name: "Revoke deploy" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
    await page.getByRole("cell", { name: "✖ Revoked" }).waitFor();
    const revoked = await world.server.request("/api/v1/me", {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(revoked.status).toBe(401);

    await page.getByLabel("Email", { exact: true }).fill(`new-${owner.email}`);
    await page.getByLabel("Password for a new account").fill(PASSWORD);
    await page.getByRole("button", { name: "Add member" }).click();
    const newMember = page.locator(".member", { hasText: `new-${owner.email}` });
    await newMember.waitFor();
    await newMember.getByRole("combobox").selectOption("admin");
    await page.locator(".toast", { hasText: "is now admin" }).waitFor();
    await newMember.getByRole("button", { name: /^Remove/ }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Remove member" }).click();
    await newMember.waitFor({ state: "detached" });

    // Organization switcher: the other organization's endpoints (none yet).
    await page.getByRole("combobox", { name: "Organization" }).selectOption(other.organizationId);
    await page.getByText("No endpoints yet").waitFor();
    await page.getByRole("combobox", { name: "Organization" }).selectOption(owner.organizationId);
    const back = page.locator(".endpoint-card", { hasText: "Phone hooks" });

    // Delete asks first; cancelling keeps the endpoint, confirming removes it and its URL.
    await back.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
    expect(await back.count()).toBe(1);
    await back.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete endpoint" }).click();
    await back.waitFor({ state: "detached" });
    expect((await world.capture(endpoint.slug, { method: "POST", body: "x" })).status).toBe(404);

    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByText("You are logged out.").waitFor();
    await pollUntil(
      async () => !(await page.context().cookies()).some((c) => c.name === "weir_session"),
      { what: "the session cookie cleared at logout" },
    );
  }, 60_000);

  test("free plan: the endpoint limit is shown, and the API's refusal too", async () => {
    const account = await signUp(world.server, { plan: "free" });
    for (const name of ["One", "Two", "Three"]) await world.createEndpoint(account, name);
    // What the capture tally stores for refused senders (its flush is tested in capture/).
    world.server.deps.db.sqlite.run(
      `INSERT INTO capture_refusals (endpoint_id, rate_limited, too_large, last_refused_at)
       SELECT id, 7, 1, ? FROM debug_endpoints WHERE name = 'One' AND organization_id = ?`,
      [new Date().toISOString(), account.organizationId],
    );
    const page = await world.newPage({ colorScheme: "dark" });
    await world.logIn(page, account);
    const refused = page.locator(".endpoint-card", { hasText: "One" }).locator(".refused-note");
    await refused.waitFor();
    expect(await textOf(refused)).toContain(
      "Refused: 7 over the plan's rate limit (429), 1 too large (413); last",
    );
    // The count fills in once the endpoint list has loaded: wait for it rather than read at once.
    await page.locator(".plan-usage", { hasText: "3 of 3 endpoints used" }).waitFor();
    expect(await textOf(page.locator(".plan-usage"))).toContain("3 of 3 endpoints used");
    await page.getByText("Endpoint limit reached.").waitFor();
    await page.getByLabel("Name", { exact: true }).fill("Four");
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await page.locator(".create-form [role=alert]", { hasText: "endpoint limit" }).waitFor();
    // Dark theme follows the system.
    const background = await page.evaluate(() => {
      const g = globalThis as unknown as {
        getComputedStyle(e: unknown): { backgroundColor: string };
        document: { body: unknown };
      };
      return g.getComputedStyle(g.document.body).backgroundColor;
    });
    expect(background).toBe("rgb(15, 17, 21)");
    // No socket on the free plan: the inspector says so and checks by itself.
    await page.getByRole("link", { name: "One" }).click();
    await page
      .locator('[data-live-state="unavailable"]', { hasText: "not on the Free plan" })
      .waitFor();
  }, 30_000);
});

describe("web UI in chromium: endpoint settings and request actions", () => {
  test("wrong password, rename, forward URL and custom response, download, delete all", async () => {
    const account = await signUp(world.server, { plan: "team" });
    const endpoint = await world.createEndpoint(account, "Settings demo");
    const page = await world.newPage();

    await page.goto(`${world.server.url}/login`);
    await page.getByLabel("Email").fill(account.email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("alert").filter({ hasText: "Invalid email or password" }).waitFor();
    await world.logIn(page, account);

    // Rename in place.
    const card = page.locator(`.endpoint-card[data-endpoint-id="${endpoint.id}"]`);
    await card.getByRole("button", { name: "Rename" }).click();
    await card.getByLabel("New name for Settings demo").fill("Renamed demo");
    await card.getByRole("button", { name: "Save" }).click();
    await card.getByRole("link", { name: "Renamed demo" }).waitFor();
    const stored = await world.server.request(`/api/v1/endpoints/${endpoint.id}`, {
      headers: account.headers,
    });
    expect(((await stored.json()) as { data: { name: string } }).data.name).toBe("Renamed demo");

    // Forward URL and custom response, then a capture sees both.
    const sink = startHttpSink();
    try {
      await card.getByRole("link", { name: "Settings" }).click();
      await page.getByLabel("Forward URL").fill(`${sink.url}/fwd`);
      await page.getByLabel(/Answer with a custom response/).check();
      await page.getByLabel("Status code").fill("201");
      await page.getByLabel("Headers").fill("x-weir-test: custom");
      await page.getByLabel(/^Body/).fill("created!");
      await page.getByRole("button", { name: "Save settings" }).click();
      await page.locator(".toast", { hasText: "Settings saved." }).waitFor();
      const answered = await world.capture(endpoint.slug, {
        method: "POST",
        headers: { "content-type": "application/octet-stream" },
        body: new Uint8Array([1, 2, 3, 254, 255]),
      });
      expect(answered.status).toBe(201);
      expect(answered.headers.get("x-weir-test")).toBe("custom");
      expect(await answered.text()).toBe("created!");
      await pollUntil(() => sink.requests.length === 1, { what: "the forward to the sink" });
      expect([...(sink.requests[0]?.body ?? [])]).toEqual([1, 2, 3, 254, 255]);
    } finally {
      await sink.stop();
    }

    // Download the body byte for byte, then empty the endpoint.
    await page.getByRole("link", { name: "Back to the inspector" }).click();
    await page.locator('[role="option"]').first().click();
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download body" }).click(),
    ]);
    expect(download.suggestedFilename()).toEndWith(".bin");
    expect([...new Uint8Array(await Bun.file(await download.path()).arrayBuffer())]).toEqual([
      1, 2, 3, 254, 255,
    ]);
    await page.getByRole("button", { name: "Delete all requests" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete all" }).click();
    await page.getByText("No requests yet").waitFor();
    const left = await world.server.request(`/api/v1/endpoints/${endpoint.id}/requests`, {
      headers: account.headers,
    });
    expect(((await left.json()) as { total: number }).total).toBe(0);
    expect(world.cspViolations(page)).toEqual([]);
  }, 60_000);
});
