/**
 * The web UI in a real browser (Debian's chromium through playwright-core) against a real server:
 * what an operator does on first run, end to end, with nothing mocked.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Locator, Page, WebSocketRoute } from "playwright-core";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { startUiWorld, type UiWorld } from "./ui.browser-world.ts";

const PASSWORD = "correct horse battery";
const STEP_MS = 10_000;
let world: UiWorld;

/** Rendered text (table cells tab-separated), as a user reads it. */
// biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText, not the DOM property.
const textOf = (locator: Locator) => locator.innerText();

/** The clipboard as the page sees it (the context grants clipboard-read). */
const readClipboard = (page: Page) =>
  page.evaluate(() =>
    (navigator as unknown as { clipboard: { readText(): Promise<string> } }).clipboard.readText(),
  );

beforeAll(async () => {
  world = await startUiWorld();
}, 60_000);

afterAll(async () => {
  await world?.stop();
});

/** The capture as a webhook sender would send it (no browser involved). */
function capture(slug: string, init: RequestInit & { sub?: string } = {}) {
  return fetch(`${world.server.url}/w/${slug}${init.sub ?? ""}`, init);
}

async function setUp(page: Page, email: string, org: string) {
  await page.goto(world.server.url);
  await page.getByRole("heading", { name: "Welcome to Weir" }).waitFor({ timeout: STEP_MS });
  expect(new URL(page.url()).pathname).toBe("/setup");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByLabel("Organization name").fill(org);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.getByRole("heading", { name: "Endpoints", exact: true }).waitFor({ timeout: STEP_MS });
}

describe("web UI in chromium", () => {
  test("setup → create endpoint → live capture → curl → replay → pause → 404", async () => {
    const page = await world.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await setUp(page, "owner@example.test", "Acme");
    expect(await page.evaluate(() => sessionStorage.getItem("weir.session"))).toContain("token");

    // Create: the API's slug error shows inline on the field, then a valid slug works.
    await page.getByLabel("Name", { exact: true }).fill("Orders");
    const slugField = page.getByLabel(/^Slug/);
    await slugField.fill("Not A Slug");
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await pollUntil(async () => (await slugField.getAttribute("aria-invalid")) === "true", {
      what: "the slug field marked invalid",
    });
    expect(await textOf(page.locator(".field.invalid .error-text"))).toContain("lowercase");
    await slugField.fill("orders");
    await page.getByRole("button", { name: "Create endpoint" }).click();
    const card = page.locator(".endpoint-card", { hasText: "Orders" });
    await card.waitFor({ timeout: STEP_MS });
    expect(await textOf(card.locator("code").first())).toBe(`${world.server.url}/w/orders`);
    expect(await card.getByText("Active").count()).toBe(1);

    // Inspector: the socket joins, then a capture appears without a reload.
    await card.getByRole("link", { name: "Open inspector" }).click();
    await page.locator('[data-live-state="live"]').waitFor({ timeout: STEP_MS });
    await page.evaluate(() => Object.assign(globalThis, { sameDocument: true }));
    const sent = await capture("orders", {
      method: "PUT",
      sub: "/hooks/github?delivery=7",
      headers: { "content-type": "application/json", "x-test": "it's one" },
      body: '{"order":"A-17","items":[1,2]}',
    });
    expect(sent.status).toBe(200);
    const { request_id: requestId } = (await sent.json()) as { request_id: string };
    const row = page.locator(`[role="option"][data-request-id="${requestId}"]`);
    await row.waitFor({ timeout: STEP_MS });
    expect(await page.evaluate(() => "sameDocument" in globalThis)).toBe(true);

    // Detail: method, sub-path, query, ordered headers, IP, size, pretty JSON.
    await row.click();
    const detail = page.locator(`article.request-detail[data-request-id="${requestId}"]`);
    await detail
      .locator(".detail-path", { hasText: "/hooks/github" })
      .waitFor({ timeout: STEP_MS });
    expect(await textOf(detail.locator(".method").first())).toBe("PUT");
    expect(await textOf(detail.getByRole("table", { name: "Query parameters" }))).toContain(
      "delivery\t7",
    );
    const headers = await textOf(detail.getByRole("table", { name: "Headers" }));
    expect(headers).toContain("x-test\tit's one");
    expect(await textOf(detail)).toContain("127.0.0.1");
    expect(await textOf(detail)).toContain("30 bytes");
    expect(await textOf(detail.locator('pre[data-body-view="json"]'))).toBe(
      '{\n  "order": "A-17",\n  "items": [\n    1,\n    2\n  ]\n}',
    );

    // Copy as curl: what lands on the clipboard is a command that sends the same request again.
    await detail.getByRole("button", { name: "Copy as curl" }).click();
    await detail.getByRole("button", { name: "Copied ✔" }).waitFor({ timeout: STEP_MS });
    const curl = await readClipboard(page);
    expect(curl).toBe((await detail.getByTestId("curl-command").textContent()) ?? "");
    expect(curl.split(" \\\n  ")[0]).toBe(
      `curl -X PUT '${world.server.url}/w/orders/hooks/github?delivery=7'`,
    );
    expect(curl).toContain(`-H 'x-test: it'\\''s one'`);
    expect(curl).toContain(`--data-binary '{"order":"A-17","items":[1,2]}'`);
    const run = Bun.spawn(["bash", "-c", `${curl} --silent --show-error`], { stderr: "pipe" });
    expect(await run.exited).toBe(0);
    await page.locator('[role="option"]').nth(1).waitFor({ timeout: STEP_MS });
    const again = page.locator('[role="option"]').first();
    await again.click();
    await detail.waitFor({ state: "detached", timeout: STEP_MS });
    const second = page.locator("article.request-detail");
    await second
      .locator(".detail-path", { hasText: "/hooks/github" })
      .waitFor({ timeout: STEP_MS });
    expect(await textOf(second.locator('pre[data-body-view="json"]'))).toContain('"A-17"');
    expect(await textOf(second.getByRole("table", { name: "Headers" }))).toContain(
      "x-test\tit's one",
    );

    // Replay to a sink: the forward record is shown and the sink got the bytes.
    const sink = startHttpSink();
    try {
      sink.answer(() => ({ status: 202, body: "thanks", headers: { "x-sink": "yes" } }));
      await second.getByLabel("Send this request again to").fill(`${sink.url}/replayed`);
      await second.getByRole("button", { name: "Replay" }).click();
      const forward = second.locator(".forward").first();
      await forward.waitFor({ timeout: STEP_MS });
      expect(await textOf(forward.locator(".forward-summary"))).toContain("HTTP 202");
      expect(await textOf(forward)).toContain("thanks");
      expect(sink.requests).toHaveLength(1);
      // The server appends the capture's sub-path to the target, as it does for forward_url.
      expect(sink.requests[0]?.path).toStartWith("/replayed");
      expect(new TextDecoder().decode(sink.requests[0]?.body)).toBe(
        '{"order":"A-17","items":[1,2]}',
      );
    } finally {
      await sink.stop();
    }

    // Pause: the status reads "Paused" and the capture URL answers 404.
    await page.getByRole("button", { name: "Pause", exact: true }).click();
    await page.locator("h1 .badge", { hasText: "Paused" }).waitFor({ timeout: STEP_MS });
    expect((await capture("orders", { method: "POST", body: "x" })).status).toBe(404);
    await page.getByRole("button", { name: "Resume" }).click();
    await page.locator("h1 .badge", { hasText: "Active" }).waitFor({ timeout: STEP_MS });
    expect((await capture("orders", { method: "POST", body: "x" })).status).toBe(200);
    expect(errors).toEqual([]);
  }, 60_000);
});

/** An account made directly in the database, logged in through the login page. */
async function logIn(page: Page, account: TestAccount) {
  await page.goto(`${world.server.url}/login`);
  await page.getByRole("heading", { name: "Log in to Weir" }).waitFor({ timeout: STEP_MS });
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("heading", { name: "Endpoints", exact: true }).waitFor({ timeout: STEP_MS });
}

async function createEndpoint(
  account: TestAccount,
  name: string,
): Promise<{ id: string; slug: string }> {
  const response = await world.server.request("/api/v1/endpoints", {
    method: "POST",
    headers: { ...account.headers, "content-type": "application/json" },
    body: JSON.stringify({ debug_endpoint: { name } }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { data: { id: string; slug: string } }).data;
}

const selectedId = (page: Page) =>
  page.locator('[role="option"][aria-selected="true"]').getAttribute("data-request-id");

describe("web UI in chromium: inspector", () => {
  test("keyboard, filters, body views, and catch-up after the socket drops", async () => {
    const account = await signUp(world.server, { plan: "team" });
    const endpoint = await createEndpoint(account, "Payments");
    const ids: string[] = [];
    for (const init of [
      { method: "GET", sub: "/ping?probe=1" },
      {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "amount=12&note=hello+world",
      },
      {
        method: "POST",
        headers: { "content-type": "application/octet-stream" },
        body: new Uint8Array([0, 255, 16, 65]),
      },
    ]) {
      const response = await capture(endpoint.slug, init);
      ids.push(((await response.json()) as { request_id: string }).request_id);
    }
    const [getId, formId, binaryId] = ids as [string, string, string];

    const page = await world.newPage();
    // Every socket the page opens goes through here, so the test can cut it and hold it down.
    let socketsDown = false;
    const sockets: WebSocketRoute[] = [];
    await page.routeWebSocket(/\/socket\/websocket/, (socket) => {
      if (socketsDown) return socket.close({ code: 1001, reason: "network down" });
      socket.connectToServer();
      sockets.push(socket);
    });
    await logIn(page, account);
    await page.getByRole("link", { name: "Payments" }).click();
    await page.locator('[data-live-state="live"]').waitFor({ timeout: STEP_MS });
    await page.locator('[role="option"]').nth(2).waitFor({ timeout: STEP_MS });

    // j/k anywhere, arrows on the focused list; newest first.
    await page.keyboard.press("j");
    expect(await selectedId(page)).toBe(binaryId);
    await page.keyboard.press("j");
    expect(await selectedId(page)).toBe(formId);
    await page.getByRole("listbox").focus();
    await page.keyboard.press("ArrowDown");
    expect(await selectedId(page)).toBe(getId);
    await page.keyboard.press("k");
    expect(await selectedId(page)).toBe(formId);

    // Form bodies as fields; binary as hex only.
    const detail = page.locator("article.request-detail");
    await detail
      .getByRole("button", { name: "Form fields", pressed: true })
      .waitFor({ timeout: STEP_MS });
    expect(await textOf(detail.getByRole("table", { name: "Form fields" }))).toContain(
      "note\thello world",
    );
    await page.keyboard.press("Home");
    expect(await selectedId(page)).toBe(binaryId);
    await detail.locator('pre[data-body-view="hex"]').waitFor({ timeout: STEP_MS });
    expect(await detail.getByRole("button", { name: "JSON" }).count()).toBe(0);
    expect(await textOf(detail.locator('pre[data-body-view="hex"]'))).toStartWith(
      "00000000  00 ff 10 41",
    );

    // Filters narrow the loaded list.
    await page.getByLabel("Method").selectOption("GET");
    await pollUntil(async () => (await page.locator('[role="option"]').count()) === 1, {
      what: "GET only",
    });
    await page.getByLabel("Method").selectOption("");
    await page.getByLabel("Filter by text").fill("AMOUNT=12");
    await pollUntil(
      async () =>
        (await page.locator('[role="option"]').count()) === 1 &&
        (await page.locator('[role="option"]').getAttribute("data-request-id")) === formId,
      { what: "text filter" },
    );
    await page.getByLabel("Filter by text").fill("");

    // The socket drops: the state says so; captures made meanwhile arrive once it is back.
    socketsDown = true;
    for (const socket of sockets.splice(0)) await socket.close({ code: 1006, reason: "cut" });
    await page.locator('[data-live-state="reconnecting"]').waitFor({ timeout: STEP_MS });
    const missed: string[] = [];
    for (const n of [1, 2]) {
      const response = await capture(endpoint.slug, { method: "POST", body: `missed ${n}` });
      missed.push(((await response.json()) as { request_id: string }).request_id);
    }
    socketsDown = false;
    await page.locator('[data-live-state="live"]').waitFor({ timeout: 15_000 });
    for (const id of missed) {
      await page.locator(`[role="option"][data-request-id="${id}"]`).waitFor({ timeout: STEP_MS });
    }
    expect(await page.locator('[role="option"]').count()).toBe(5);
  }, 60_000);
});

/** Form controls without an accessible name (label, aria-label), by tag and name. */
const unlabelled = (page: Page) =>
  page.locator("input, select, textarea").evaluateAll((elements) =>
    elements
      .map(
        (el) =>
          el as unknown as {
            labels: unknown[] | null;
            name: string;
            tagName: string;
            getAttribute(n: string): string | null;
          },
      )
      .filter((el) => !(el.labels?.length || el.getAttribute("aria-label")))
      .map((el) => `${el.tagName}[name=${el.name}]`),
  );

/** How far the page is wider than the viewport (0 when nothing scrolls sideways). */
const sidewaysOverflow = (page: Page) =>
  page.evaluate(() => {
    const root = (
      globalThis as unknown as {
        document: { documentElement: { scrollWidth: number; clientWidth: number } };
      }
    ).document.documentElement;
    return root.scrollWidth - root.clientWidth;
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
    const endpoint = await createEndpoint(owner, "Phone hooks");
    await capture(endpoint.slug, {
      method: "POST",
      body: '{"from":"phone"}',
      headers: { "content-type": "application/json" },
    });

    const page = await world.newPage({ width: 375, height: 740 });
    await logIn(page, owner);
    expect(await sidewaysOverflow(page)).toBe(0);
    expect(await unlabelled(page)).toEqual([]);
    const card = page.locator(".endpoint-card", { hasText: "Phone hooks" });
    expect(await textOf(card.locator(".request-count"))).toBe("1");

    // The inspector on a phone: the list, then the request alone with a way back.
    await card.getByRole("link", { name: "Open inspector" }).click();
    await page.locator('[role="option"]').first().click();
    await page.getByRole("button", { name: "← Back to the list" }).waitFor({ timeout: STEP_MS });
    expect(await page.getByRole("listbox").isVisible()).toBe(false);
    expect(await sidewaysOverflow(page)).toBe(0);
    await page.getByRole("button", { name: "← Back to the list" }).click();
    await page.getByRole("listbox").waitFor({ timeout: STEP_MS });

    // Settings: plan limits, an API key shown once with its warning, members.
    await page.getByRole("link", { name: "Settings", exact: true }).first().click();
    await page.getByRole("heading", { name: "API keys" }).waitFor({ timeout: STEP_MS });
    expect(await textOf(page.getByRole("table", { name: "Plan limits" }))).toContain(
      "Debug endpoints\t10",
    );
    expect(await unlabelled(page)).toEqual([]);
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
    await page.getByRole("cell", { name: "✖ Revoked" }).waitFor({ timeout: STEP_MS });
    const revoked = await world.server.request("/api/v1/me", {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(revoked.status).toBe(401);

    await page.getByLabel("Email", { exact: true }).fill(`new-${owner.email}`);
    await page.getByLabel("Password for a new account").fill(PASSWORD);
    await page.getByRole("button", { name: "Add member" }).click();
    const newMember = page.locator(".member", { hasText: `new-${owner.email}` });
    await newMember.waitFor({ timeout: STEP_MS });
    await newMember.getByRole("combobox").selectOption("admin");
    await page.locator(".toast", { hasText: "is now admin" }).waitFor({ timeout: STEP_MS });
    await newMember.getByRole("button", { name: /^Remove/ }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Remove member" }).click();
    await newMember.waitFor({ state: "detached", timeout: STEP_MS });

    // Organization switcher: the other organization's endpoints (none yet).
    await page.getByRole("combobox", { name: "Organization" }).selectOption(other.organizationId);
    await page.getByText("No endpoints yet").waitFor({ timeout: STEP_MS });
    await page.getByRole("combobox", { name: "Organization" }).selectOption(owner.organizationId);
    const back = page.locator(".endpoint-card", { hasText: "Phone hooks" });

    // Delete asks first; cancelling keeps the endpoint, confirming removes it and its URL.
    await back.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
    expect(await back.count()).toBe(1);
    await back.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete endpoint" }).click();
    await back.waitFor({ state: "detached", timeout: STEP_MS });
    expect((await capture(endpoint.slug, { method: "POST", body: "x" })).status).toBe(404);

    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByText("You are logged out.").waitFor({ timeout: STEP_MS });
    expect(await page.evaluate(() => sessionStorage.getItem("weir.session"))).toBeNull();
  }, 60_000);

  test("free plan: the endpoint limit is shown, and the API's refusal too", async () => {
    const account = await signUp(world.server, { plan: "free" });
    for (const name of ["One", "Two", "Three"]) await createEndpoint(account, name);
    const page = await world.newPage({ colorScheme: "dark" });
    await logIn(page, account);
    expect(await textOf(page.locator(".plan-usage"))).toContain("3 of 3 endpoints used");
    await page.getByText("Endpoint limit reached.").waitFor({ timeout: STEP_MS });
    await page.getByLabel("Name", { exact: true }).fill("Four");
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await page
      .locator(".create-form [role=alert]", { hasText: "endpoint limit" })
      .waitFor({ timeout: STEP_MS });
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
      .waitFor({ timeout: STEP_MS });
  }, 30_000);
});

describe("web UI in chromium: endpoint settings and request actions", () => {
  test("wrong password, rename, forward URL and custom response, download, delete all", async () => {
    const account = await signUp(world.server, { plan: "team" });
    const endpoint = await createEndpoint(account, "Settings demo");
    const page = await world.newPage();

    await page.goto(`${world.server.url}/login`);
    await page.getByLabel("Email").fill(account.email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Log in" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: "Invalid email or password" })
      .waitFor({ timeout: STEP_MS });
    await logIn(page, account);

    // Rename in place.
    const card = page.locator(`.endpoint-card[data-endpoint-id="${endpoint.id}"]`);
    await card.getByRole("button", { name: "Rename" }).click();
    await card.getByLabel("New name for Settings demo").fill("Renamed demo");
    await card.getByRole("button", { name: "Save" }).click();
    await card.getByRole("link", { name: "Renamed demo" }).waitFor({ timeout: STEP_MS });
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
      await page.locator(".toast", { hasText: "Settings saved." }).waitFor({ timeout: STEP_MS });
      const answered = await capture(endpoint.slug, {
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
    await page.getByText("No requests yet").waitFor({ timeout: STEP_MS });
    const left = await world.server.request(`/api/v1/endpoints/${endpoint.id}/requests`, {
      headers: account.headers,
    });
    expect(((await left.json()) as { total: number }).total).toBe(0);
  }, 60_000);
});
