/**
 * The web UI in a real browser (Debian's chromium through playwright-core) against a real server,
 * nothing mocked: first run end to end, and the live inspector.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page, WebSocketRoute } from "playwright-core";
import { signUp } from "../test-utils/accounts.ts";
import { readClipboard, startUiWorld, textOf, type UiWorld } from "../test-utils/browser-world.ts";
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

async function setUp(page: Page, email: string, org: string) {
  await page.goto(world.server.url);
  await page.getByRole("heading", { name: "Welcome to Weir" }).waitFor();
  expect(new URL(page.url()).pathname).toBe("/setup");
  expect(await page.getByTestId("setup-plan").textContent()).toContain(
    "This first organization gets the Enterprise plan",
  );
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByLabel("Organization name").fill(org);
  await page.getByRole("button", { name: "Create account" }).click();
  // Login lands on the dashboard; the endpoints screen is one link away.
  await page.getByRole("heading", { name: "Dashboard", exact: true }).waitFor();
  await page
    .getByRole("navigation", { name: "Main" })
    .getByRole("link", { name: "Endpoints" })
    .click();
  await page.getByRole("heading", { name: "Endpoints", exact: true }).waitFor();
}

describe("web UI in chromium", () => {
  test("setup → create endpoint → live capture → curl → replay → pause → 404", async () => {
    const page = await world.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await setUp(page, "owner@example.test", "Acme");
    // The login is an httpOnly cookie: nothing a page script can read holds the token.
    expect(await page.evaluate("document.cookie")).not.toContain("weir_session");
    expect((await page.context().cookies()).map((c) => c.name)).toContain("weir_session");

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
    await card.waitFor();
    expect(await textOf(card.locator("code").first())).toBe(`${world.server.url}/w/orders`);
    expect(await card.getByText("Active").count()).toBe(1);

    // Inspector: the socket joins, then a capture appears without a reload.
    await card.getByRole("link", { name: "Open inspector" }).click();
    await page.locator('[data-live-state="live"]').waitFor();
    await page.evaluate(() => Object.assign(globalThis, { sameDocument: true }));
    const sent = await world.capture("orders", {
      method: "PUT",
      sub: "/hooks/github?delivery=7",
      headers: { "content-type": "application/json", "x-test": "it's one" },
      body: '{"order":"A-17","items":[1,2]}',
    });
    expect(sent.status).toBe(200);
    const { request_id: requestId } = (await sent.json()) as { request_id: string };
    const row = page.locator(`[role="option"][data-request-id="${requestId}"]`);
    await row.waitFor();
    expect(await page.evaluate(() => "sameDocument" in globalThis)).toBe(true);

    // Detail: method, sub-path, query, ordered headers, IP, size, pretty JSON.
    await row.click();
    const detail = page.locator(`article.request-detail[data-request-id="${requestId}"]`);
    await detail.locator(".detail-path", { hasText: "/hooks/github" }).waitFor();
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
    await detail.getByRole("button", { name: "Copied ✔" }).waitFor();
    const curl = await readClipboard(page);
    expect(curl).toBe((await detail.getByTestId("curl-command").textContent()) ?? "");
    expect(curl.split(" \\\n  ")[0]).toBe(
      `curl -X PUT '${world.server.url}/w/orders/hooks/github?delivery=7'`,
    );
    expect(curl).toContain(`-H 'x-test: it'\\''s one'`);
    expect(curl).toContain(`--data-binary '{"order":"A-17","items":[1,2]}'`);
    const run = Bun.spawn(["bash", "-c", `${curl} --silent --show-error`], { stderr: "pipe" });
    expect(await run.exited).toBe(0);
    await page.locator('[role="option"]').nth(1).waitFor();
    const again = page.locator('[role="option"]').first();
    await again.click();
    await detail.waitFor({ state: "detached" });
    const second = page.locator("article.request-detail");
    await second.locator(".detail-path", { hasText: "/hooks/github" }).waitFor();
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
      await forward.waitFor();
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
    await page.locator("h1 .badge", { hasText: "Paused" }).waitFor();
    expect((await world.capture("orders", { method: "POST", body: "x" })).status).toBe(404);
    await page.getByRole("button", { name: "Resume" }).click();
    await page.locator("h1 .badge", { hasText: "Active" }).waitFor();
    expect((await world.capture("orders", { method: "POST", body: "x" })).status).toBe(200);
    expect(errors).toEqual([]);
    expect(world.cspViolations(page)).toEqual([]);
  }, 60_000);
});

const selectedId = (page: Page) =>
  page.locator('[role="option"][aria-selected="true"]').getAttribute("data-request-id");

describe("web UI in chromium: inspector", () => {
  test("keyboard, filters, body views, and catch-up after the socket drops", async () => {
    const account = await signUp(world.server, { plan: "team" });
    const endpoint = await world.createEndpoint(account, "Payments");
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
      const response = await world.capture(endpoint.slug, init);
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
    await world.logIn(page, account);
    await page.getByRole("link", { name: "Payments" }).click();
    await page.locator('[data-live-state="live"]').waitFor();
    await page.locator('[role="option"]').nth(2).waitFor();

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
    await detail.getByRole("button", { name: "Form fields", pressed: true }).waitFor();
    expect(await textOf(detail.getByRole("table", { name: "Form fields" }))).toContain(
      "note\thello world",
    );
    await page.keyboard.press("Home");
    expect(await selectedId(page)).toBe(binaryId);
    await detail.locator('pre[data-body-view="hex"]').waitFor();
    expect(await detail.getByRole("button", { name: "JSON", exact: true }).count()).toBe(0);
    expect(await textOf(detail.locator('pre[data-body-view="hex"]'))).toStartWith(
      "00000000  00 ff 10 41",
    );

    // Presses faster than the page re-renders are not lost.
    await page.keyboard.press("j");
    await page.keyboard.press("j");
    await pollUntil(async () => (await selectedId(page)) === getId, {
      what: "two quick j presses",
    });

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
    await page.locator('[data-live-state="reconnecting"]').waitFor();
    const missed: string[] = [];
    for (const n of [1, 2]) {
      const response = await world.capture(endpoint.slug, { method: "POST", body: `missed ${n}` });
      missed.push(((await response.json()) as { request_id: string }).request_id);
    }
    socketsDown = false;
    await page.locator('[data-live-state="live"]').waitFor({ timeout: 15_000 });
    for (const id of missed) {
      await page.locator(`[role="option"][data-request-id="${id}"]`).waitFor();
    }
    expect(await page.locator('[role="option"]').count()).toBe(5);
    expect(world.cspViolations(page)).toEqual([]);

    // The watcher sees a violation when there is one: an inline script is refused.
    await page.evaluate(() => {
      type Node = { textContent: string };
      const doc = (
        globalThis as unknown as {
          document: { createElement(tag: string): Node; body: { append(node: Node): void } };
        }
      ).document;
      const script = doc.createElement("script");
      script.textContent = "window.inlineRan = true";
      doc.body.append(script);
    });
    await pollUntil(() => world.cspViolations(page).length > 0, { what: "a CSP violation seen" });
    expect(await page.evaluate(() => (globalThis as { inlineRan?: boolean }).inlineRan)).toBe(
      undefined,
    );
  }, 60_000);
});
