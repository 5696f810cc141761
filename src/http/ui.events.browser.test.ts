/**
 * The events screens in chromium against a real server: the list with its filters in the URL,
 * bulk retry of what the filters select, and an event's request, sent request and attempts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import {
  sidewaysOverflow,
  startUiWorld,
  type UiWorld,
  unlabelledControls,
} from "../test-utils/browser-world.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";

let world: UiWorld;
let owner: TestAccount;
const sink = startHttpSink();
let counter = 0;

beforeAll(async () => {
  // Retries far apart: a failed attempt stays failed until the test retries it.
  world = await startUiWorld({ config: { retry_base_ms: 60_000, retry_cap_ms: 60_000 } });
  owner = await signUp(world.server);
  sink.answer((request) =>
    request.path.startsWith("/down") ? { status: 503, body: "upstream down" } : { status: 200 },
  );
}, 60_000);

afterAll(async () => {
  await world?.stop();
  await sink.stop();
});

/** A bridge from a new source to the sink; `/down…` paths answer 503, others 200. */
async function bridgeTo(path: string, maxRetries = 0) {
  counter += 1;
  const created = await callAs(world.server, owner, "POST", "/api/v1/bridges", {
    name: `Bridge ${counter} ${path}`,
    source: { name: `Source ${counter} ${path}`, type: "webhook" },
    destinations: [{ name: `Sink ${path}`, url: `${sink.url}/${path}`, max_retries: maxRetries }],
  });
  expect(created.status).toBe(201);
  return created.body.data as { id: string; name: string; source_id: string };
}

async function ingest(sourceId: string, body: unknown): Promise<string> {
  const answer = await world.server.request(`/api/v1/sources/${sourceId}/ingest`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { event_id: string }).event_id;
}

const eventStatus = async (id: string) =>
  (await callAs(world.server, owner, "GET", `/api/v1/events/${id}`)).body.data.status as string;

async function failedEvent(sourceId: string, body: unknown) {
  const id = await ingest(sourceId, body);
  await pollUntil(async () => (await eventStatus(id)) === "failed", {
    what: "the event failed",
    timeoutMs: 10_000,
  });
  return id;
}

async function openEvents(page: Page, query = "") {
  await world.logIn(page, owner);
  await page.goto(`${world.server.url}/events${query}`);
  await page.getByRole("heading", { name: "Events", exact: true }).waitFor();
}

async function expectClean(page: Page, errors: Error[]) {
  expect(errors).toEqual([]);
  expect(world.cspViolations(page)).toEqual([]);
  expect(await unlabelledControls(page)).toEqual([]);
}

describe("events in chromium", () => {
  test("the whole UI, every screen included, stays within its first-load budget", () => {
    expect(world.gzipBytes).toBeLessThanOrEqual(80 * 1024);
  });

  test("an event's page shows the request received, the request sent and every attempt; Retry sends it again", async () => {
    const bridge = await bridgeTo("down-one");
    const id = await failedEvent(bridge.source_id, { order: "A-1" });
    const page = await world.newPage();
    const errors: Error[] = [];
    page.on("pageerror", (e) => errors.push(e));
    await openEvents(page, `?source_id=${bridge.source_id}`);

    const row = page.getByRole("row", { name: /Failed.*POST/ });
    await row.waitFor();
    expect(await page.getByRole("row").count()).toBe(2);
    await row.getByRole("link").click();
    await page.waitForURL(`**/events/${id}`);
    // The event page names the tab once it has rendered; the URL changes before that.
    await page.getByRole("heading", { name: "Request as received" }).waitFor();
    expect(await page.title()).toBe("Event · Weir");
    await page.getByRole("table", { name: "Headers received" }).waitFor();
    await page.getByText('"order"').first().waitFor();
    const attempts = page.getByRole("list", { name: /Attempts to Sink down-one/ });
    await attempts.getByText(/Attempt 1 .* HTTP 503 .* ms .* ✖ http_error/).waitFor();
    await attempts.getByText("upstream down").waitFor();
    // An attempt can be linked to: the URL selects it, a reload keeps it.
    await attempts.getByRole("link", { name: "Attempt 1" }).click();
    await page.waitForURL(/\?attempt=/);
    await page.reload();
    await attempts
      .locator('li.selected a[aria-current="true"]', { hasText: "Attempt 1" })
      .waitFor();
    await page.getByText(/Request sent: POST .*\/down-one/).click();
    await page.getByRole("table", { name: "Headers sent" }).getByText("webhook-id").waitFor();

    // The destination is back: retry the event, and its second attempt is delivered.
    sink.answer(() => ({ status: 200, body: "fine" }));
    try {
      await page.getByRole("button", { name: "Retry", exact: true }).click();
      await page.getByRole("status").getByText("Retry: 1 queued again").waitFor();
      // No reload: the page follows the event while a delivery is on its way.
      await attempts.getByText(/Attempt 2 .* HTTP 200 .* ✔ ok/).waitFor();
      await page.getByText("✔ Delivered").first().waitFor();
    } finally {
      sink.answer((request) =>
        request.path.startsWith("/down") ? { status: 503, body: "upstream down" } : { status: 200 },
      );
    }
    await expectClean(page, errors);
  });

  test("a delivery waiting for its next attempt says when, and Retry now sends it at once", async () => {
    const bridge = await bridgeTo("down-waiting", 5);
    const id = await ingest(bridge.source_id, { order: "W-1" });
    const waiting = async () =>
      (await callAs(world.server, owner, "GET", `/api/v1/events/${id}`)).body.data.deliveries[0];
    await pollUntil(async () => (await waiting())?.status === "retrying", {
      what: "the delivery waiting for its next attempt",
    });
    const page = await world.newPage();
    const errors: Error[] = [];
    page.on("pageerror", (e) => errors.push(e));
    await world.logIn(page, owner);
    await page.goto(`${world.server.url}/events/${id}`);
    await page.getByText("↻ Retrying").waitFor();
    await page.getByText(/1 attempt · next attempt in/).waitFor();
    expect(await page.getByRole("button", { name: "Retry", exact: true }).count()).toBe(0);
    await page.getByRole("button", { name: "Retry now" }).click();
    await page.getByRole("status").getByText("Retry: 1 sent now").waitFor();
    await page
      .getByRole("list", { name: /Attempts to Sink down-waiting/ })
      .getByText(/Attempt 2 .* HTTP 503/)
      .waitFor();
    await expectClean(page, errors);
  });

  test("filters live in the URL; bulk retry confirms the count and retries what they select", async () => {
    const bridge = await bridgeTo("down-many");
    for (let i = 0; i < 3; i += 1) await failedEvent(bridge.source_id, { n: i });
    const other = await bridgeTo("up");
    await ingest(other.source_id, { n: "fine" });
    const page = await world.newPage();
    const errors: Error[] = [];
    page.on("pageerror", (e) => errors.push(e));
    await openEvents(page);

    await page.getByLabel("Source").selectOption({ label: `Source ${counter - 1} down-many` });
    await page.waitForURL(new RegExp(`source_id=${bridge.source_id}`));
    await page.getByLabel("Status").selectOption("failed");
    await page.waitForURL(/status=failed/);
    await page.getByText("3 events").waitFor();
    expect(await page.getByRole("row", { name: /Failed/ }).count()).toBe(3);

    // Reload keeps the same screen.
    await page.reload();
    await page.getByText("3 events").waitFor();
    expect(await page.getByLabel("Status").inputValue()).toBe("failed");

    // Cancel gives focus back to the button that opened the dialog.
    const retryMatching = page.getByRole("button", { name: "Retry matching events" });
    await retryMatching.click();
    await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
    await page.getByRole("dialog").waitFor({ state: "detached" });
    expect(await retryMatching.evaluate((el) => el.matches(":focus"))).toBe(true);

    await retryMatching.click();
    const dialog = page.getByRole("dialog", { name: "Retry 3 events?" });
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Retry" }).click();
    await page.getByRole("status").getByText("Retry started: 3 deliveries made due now").waitFor();

    // A time filter goes to the URL as ISO 8601; filters that match nothing say so and offer to
    // clear them.
    await page.getByLabel("From").fill("2099-01-01T00:00");
    await page.waitForURL(/since=2099-/);
    await page.getByText("No events match these filters.").waitFor();
    await page.getByRole("button", { name: "Clear filters" }).click();
    await page.waitForURL((url) => url.search === "");
    await expectClean(page, errors);
  });

  test("the latency column: receipt to last success for a delivered event, counting up while pending, none when failed", async () => {
    const up = await bridgeTo("up-latency");
    const waiting = await bridgeTo("down-latency", 3);
    const delivered = await ingest(up.source_id, { n: "quick" });
    const pending = await ingest(waiting.source_id, { n: "slow" });
    await pollUntil(async () => (await eventStatus(delivered)) === "delivered", {
      what: "the event delivered",
    });
    await pollUntil(
      async () => {
        const answer = await callAs(world.server, owner, "GET", `/api/v1/events/${pending}`);
        return answer.body.data.deliveries[0]?.attempts === 1;
      },
      { what: "the first attempt failed" },
    );
    const page = await world.newPage();
    const errors: Error[] = [];
    page.on("pageerror", (e) => errors.push(e));
    await openEvents(page, `?source_id=${up.source_id}`);
    await page.getByRole("columnheader", { name: "Latency" }).waitFor();
    const done = page.getByRole("row", { name: /Delivered/ });
    await done.waitFor();
    expect(await done.getByRole("cell").last().textContent()).toMatch(/^\d+(\.\d)? m?s$/);

    await page.goto(`${world.server.url}/events?source_id=${waiting.source_id}`);
    const running = page.getByRole("row", { name: /Pending/ });
    await running.waitFor();
    expect(await running.getByRole("cell").last().textContent()).toMatch(/ so far$/);

    const broken = await bridgeTo("down-latency-now");
    await failedEvent(broken.source_id, { n: "lost" });
    await page.goto(`${world.server.url}/events?source_id=${broken.source_id}`);
    const failed = page.getByRole("row", { name: /Failed/ });
    await failed.waitFor();
    expect(await failed.getByRole("cell").last().textContent()).toBe("—");
    await expectClean(page, errors);
  });

  test("an event that does not exist is a not-found page; a member sees no retry; small screen and dark theme", async () => {
    const member = await owner.addMember("member");
    const bridge = await bridgeTo("down-member");
    const id = await failedEvent(bridge.source_id, { n: 1 });
    const page = await world.newPage({ width: 375, height: 740, colorScheme: "dark" });
    const errors: Error[] = [];
    page.on("pageerror", (e) => errors.push(e));
    await world.logIn(page, member);
    await page.goto(`${world.server.url}/events/${id}`);
    await page.getByRole("heading", { name: /Event POST/ }).waitFor();
    await page.getByText("✖ Failed").first().waitFor();
    expect(await page.getByRole("button", { name: "Retry" }).count()).toBe(0);
    expect(await sidewaysOverflow(page)).toBe(0);

    await page.goto(`${world.server.url}/events?source_id=${bridge.source_id}`);
    await page.getByRole("row", { name: /Failed/ }).waitFor();
    expect(await page.getByRole("button", { name: "Retry matching events" }).count()).toBe(0);
    expect(await sidewaysOverflow(page)).toBe(0);

    // A new event is counted, not slipped in under the reader; Show brings it in.
    await ingest(bridge.source_id, { n: 2 });
    await page.getByText("1 new event ·").waitFor({ timeout: 15_000 });
    expect(await page.getByRole("row", { name: /POST/ }).count()).toBe(1);
    await page.getByRole("button", { name: "Show" }).click();
    await pollUntil(async () => (await page.getByRole("row", { name: /POST/ }).count()) === 2, {
      what: "the new event in the list",
    });

    await page.goto(`${world.server.url}/events/01a2181a-0000-7000-8000-000000000000`);
    await page.getByRole("heading", { name: "Event not found" }).waitFor();
    await page.getByRole("link", { name: "Back to events" }).click();
    await page.getByRole("heading", { name: "Events", exact: true }).waitFor();
    await expectClean(page, errors);
  });
});
