#!/usr/bin/env bun
/**
 * Web UI figures: the bundle's gzip size, and time to interactive of the inspector page in
 * headless chromium on an endpoint holding 500 captured requests, against the same page on an
 * empty endpoint measured in the same run (the ratio is the figure to compare across machines).
 *
 * Time to interactive here: from navigation start (in-page clock) until the newest page of
 * requests is rendered and the socket has joined (state "Live"); a key press is then checked to
 * move the selection (not part of the figure, which would add the driver's round trip).
 * Also: time until all 500 are in the list ("Load older" until none is left), and how long a `j`
 * press takes to show the next selection with 500 rows (Event Timing, like INP). Medians of
 * --rounds (default 5).
 *
 * Usage: bun scripts/bench/ui-inspector.ts [--rounds N] [--requests N]
 */
import type { Page } from "playwright-core";
import { signUp } from "../../src/test-utils/accounts.ts";
import { startUiWorld, type UiWorld } from "../../src/test-utils/browser-world.ts";

const argument = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const ROUNDS = argument("--rounds", 5);
const REQUESTS = argument("--requests", 500);
const WAIT = { timeout: 30_000 };

/** A ~1 KiB JSON webhook, varied enough that rows differ. */
function sampleBody(n: number): string {
  return JSON.stringify({
    id: `evt_${n}`,
    type: n % 3 === 0 ? "invoice.paid" : "customer.updated",
    data: {
      object: {
        id: `obj_${n}`,
        amount: n * 7,
        lines: Array.from({ length: 8 }, (_, i) => ({
          sku: `S-${i}`,
          qty: i + 1,
          note: "x".repeat(40),
        })),
      },
    },
  });
}

async function fill(world: UiWorld, slug: string, count: number): Promise<void> {
  const batch = 25;
  for (let start = 0; start < count; start += batch) {
    const sends = [];
    for (let n = start; n < Math.min(count, start + batch); n++) {
      sends.push(
        fetch(`${world.server.url}/w/${slug}/events/${n}?attempt=1`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: sampleBody(n),
        }).then((r) => r.arrayBuffer()),
      );
    }
    await Promise.all(sends);
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** In-page milliseconds since navigation start, once the inspector is usable. */
async function timeToInteractive(page: Page, url: string, expectedRows: number): Promise<number> {
  await page.goto(url, { waitUntil: "commit" });
  const handle = await page.waitForFunction(
    (rows) => {
      const doc = (
        globalThis as unknown as {
          document: {
            querySelectorAll(s: string): { length: number };
            querySelector(s: string): unknown;
          };
        }
      ).document;
      const ready =
        doc.querySelectorAll('[role="option"]').length >= rows &&
        doc.querySelector('[data-live-state="live"]');
      return ready ? performance.now() : false;
    },
    expectedRows,
    { ...WAIT, polling: "raf" },
  );
  const ready = (await handle.jsonValue()) as number;
  if (expectedRows > 0) {
    // Proof that it is interactive, not part of the figure: a key press selects a row.
    await page.keyboard.press("j");
    await page.locator('[role="option"][aria-selected="true"]').waitFor(WAIT);
  }
  return ready;
}

async function loadAll(page: Page, total: number): Promise<number> {
  const start = await page.evaluate(() => performance.now());
  for (let shown = await page.locator('[role="option"]').count(); shown < total; ) {
    await page.getByRole("button", { name: /Load older requests/ }).click();
    const grown = await page.waitForFunction(
      (previous) => {
        const doc = (
          globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }
        ).document;
        const now = doc.querySelectorAll('[role="option"]').length;
        return now > previous ? now : false;
      },
      shown,
      WAIT,
    );
    shown = (await grown.jsonValue()) as number;
  }
  return (await page.evaluate(() => performance.now())) - start;
}

/**
 * Interaction to next paint of `j` presses (real key events from the driver): the browser's own
 * Event Timing `duration`, from the key event to the frame that shows the new selection.
 */
async function keyToPaint(page: Page, presses = 10): Promise<number> {
  await page.evaluate(() => {
    const g = globalThis as unknown as { keyTimings: number[] };
    g.keyTimings = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries())
        if (entry.name === "keydown") g.keyTimings.push(entry.duration);
    }).observe({
      type: "event",
      durationThreshold: 16,
      buffered: false,
    } as unknown as Parameters<PerformanceObserver["observe"]>[0]);
  });
  for (let i = 0; i < presses; i++) {
    const before = await page.locator('[aria-selected="true"]').getAttribute("data-request-id");
    await page.keyboard.press("j");
    await page.waitForFunction(
      (previous) =>
        (
          globalThis as unknown as {
            document: {
              querySelector(s: string): { getAttribute(n: string): string | null } | null;
            };
          }
        ).document
          .querySelector('[aria-selected="true"]')
          ?.getAttribute("data-request-id") !== previous,
      before,
      WAIT,
    );
  }
  // Entries arrive after their frame; poll until every press has one (below 16 ms is not reported).
  const timings = await page
    .waitForFunction(
      (count) => {
        const list = (globalThis as unknown as { keyTimings: number[] }).keyTimings;
        return list.length >= count ? list : false;
      },
      presses,
      { timeout: 2000 },
    )
    .then(
      (handle) => handle.jsonValue() as Promise<number[]>,
      async () =>
        page.evaluate(() => (globalThis as unknown as { keyTimings: number[] }).keyTimings),
    );
  // Presses answered within 16 ms produce no entry: count them as 16.
  const all = [...timings, ...Array(Math.max(0, presses - timings.length)).fill(16)];
  return median(all);
}

async function main(): Promise<void> {
  const world = await startUiWorld();
  try {
    const account = await signUp(world.server, { plan: "team" });
    const full = await world.createEndpoint(account, "Bench full");
    const empty = await world.createEndpoint(account, "Bench empty");
    await fill(world, full.slug, REQUESTS);
    const page = await world.newPage();
    await world.logIn(page, account);

    const results = {
      emptyTti: [] as number[],
      fullTti: [] as number[],
      loadAll: [] as number[],
      key: [] as number[],
    };
    for (let round = 0; round < ROUNDS; round++) {
      results.emptyTti.push(
        await timeToInteractive(page, `${world.server.url}/endpoints/${empty.id}`, 0),
      );
      results.fullTti.push(
        await timeToInteractive(
          page,
          `${world.server.url}/endpoints/${full.id}`,
          Math.min(100, REQUESTS),
        ),
      );
      results.loadAll.push(await loadAll(page, REQUESTS));
      results.key.push(await keyToPaint(page));
    }
    const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
    const ms = (value: number) => `${value.toFixed(0)} ms`;
    const emptyTti = median(results.emptyTti);
    const fullTti = median(results.fullTti);
    console.log(`ui bundle: ${kib(world.gzipBytes)} gzip (index.html + JS + CSS)`);
    console.log(`inspector TTI, empty endpoint (baseline): ${ms(emptyTti)}`);
    console.log(
      `inspector TTI, ${REQUESTS} stored (newest 100 rendered, live): ${ms(fullTti)}  ratio ${(fullTti / emptyTti).toFixed(2)}`,
    );
    console.log(`all ${REQUESTS} in the list (Load older): +${ms(median(results.loadAll))}`);
    console.log(
      `j key with ${REQUESTS} rows, key to next paint (Event Timing): ${ms(median(results.key))}`,
    );
    console.log(`(medians of ${ROUNDS} rounds; headless chromium, server in the same process)`);
  } finally {
    await world.stop();
  }
}

await main();
