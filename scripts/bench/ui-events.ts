#!/usr/bin/env bun
/**
 * Time to interactive of the events list in headless chromium with 1,000 events (delivered to a
 * local sink, so each row has its latency), against the same screen on a source with none, measured
 * in the same run (the ratio is the figure to compare across machines). Same method as
 * ui-inspector.ts.
 *
 * Time to interactive here: from navigation start (in-page clock) until the first page of events
 * is rendered with its total ("1000 events"), or the empty list says so; a filter change is then
 * checked to take effect (not part of the figure, which would add the driver's round trip).
 * Medians of --rounds (default 5).
 *
 * Usage: bun scripts/bench/ui-events.ts [--rounds N] [--events N]
 */
import type { Page } from "playwright-core";
import { signUp, type TestAccount } from "../../src/test-utils/accounts.ts";
import { startUiWorld, type UiWorld } from "../../src/test-utils/browser-world.ts";
import { callAs } from "../../src/test-utils/endpoints.ts";
import { startHttpSink } from "../../src/test-utils/http-sink.ts";
import { pollUntil } from "../../src/test-utils/poll.ts";

const argument = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const ROUNDS = argument("--rounds", 5);
const EVENTS = argument("--events", 1000);
const WAIT = { timeout: 30_000 };

/** A ~1 KiB JSON webhook, varied enough that rows differ. */
const sampleBody = (n: number) =>
  JSON.stringify({
    id: `evt_${n}`,
    type: n % 3 === 0 ? "invoice.paid" : "customer.updated",
    data: { object: { id: `obj_${n}`, amount: n * 7, note: "x".repeat(800) } },
  });

async function sourceTo(world: UiWorld, account: TestAccount, url: string, name: string) {
  const created = await callAs(world.server, account, "POST", "/api/v1/bridges", {
    name,
    source: { name: `${name} source`, type: "webhook" },
    destinations: [{ name: "Sink", type: "http", url, max_retries: 0 }],
  });
  const source = await callAs(
    world.server,
    account,
    "GET",
    `/api/v1/sources/${created.body.data.source_id}`,
  );
  return source.body.data as { id: string; ingest_url: string };
}

async function fill(ingestUrl: string, count: number): Promise<void> {
  const batch = 25;
  for (let start = 0; start < count; start += batch) {
    const sends = [];
    for (let n = start; n < Math.min(count, start + batch); n++) {
      sends.push(
        fetch(ingestUrl, { method: "POST", body: sampleBody(n) }).then((r) => r.arrayBuffer()),
      );
    }
    await Promise.all(sends);
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** In-page milliseconds since navigation start, once the list shows `ready` text. */
async function timeToInteractive(page: Page, url: string, ready: string): Promise<number> {
  await page.goto(url, { waitUntil: "commit" });
  const handle = await page.waitForFunction(
    (text) => {
      const doc = (
        globalThis as unknown as { document: { body: { textContent: string | null } | null } }
      ).document;
      return doc.body?.textContent?.includes(text) ? performance.now() : false;
    },
    ready,
    { ...WAIT, polling: "raf" },
  );
  const at = (await handle.jsonValue()) as number;
  // Proof that it is interactive, not part of the figure: a filter change reaches the URL.
  await page.getByLabel("Status").selectOption("failed");
  await page.waitForURL(/status=failed/, WAIT);
  return at;
}

async function main(): Promise<void> {
  const world = await startUiWorld();
  const sink = startHttpSink();
  try {
    const account = await signUp(world.server, { plan: "team" });
    const full = await sourceTo(world, account, `${sink.url}/full`, "Bench full");
    const empty = await sourceTo(world, account, `${sink.url}/empty`, "Bench empty");
    await fill(full.ingest_url, EVENTS);
    await pollUntil(
      async () => {
        const query = `/api/v1/events?source_id=${full.id}&status=delivered&page_size=1`;
        return (await callAs(world.server, account, "GET", query)).body.total === EVENTS;
      },
      { timeoutMs: 120_000, what: "every event delivered" },
    );
    const page = await world.newPage();
    await world.logIn(page, account);
    const emptyTti: number[] = [];
    const fullTti: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const base = `${world.server.url}/events?source_id=`;
      emptyTti.push(await timeToInteractive(page, `${base}${empty.id}`, "No events match"));
      fullTti.push(await timeToInteractive(page, `${base}${full.id}`, `${EVENTS} events`));
    }
    const ms = (value: number) => `${value.toFixed(0)} ms`;
    const [e, f] = [median(emptyTti), median(fullTti)];
    console.log(
      `ui bundle: ${(world.gzipBytes / 1024).toFixed(1)} KiB gzip (index.html + JS + CSS)`,
    );
    console.log(`events list TTI, empty source (baseline): ${ms(e)}`);
    console.log(
      `events list TTI, ${EVENTS} events (first page of 25 with latencies): ${ms(f)}  ratio ${(f / e).toFixed(2)}`,
    );
    console.log(`(medians of ${ROUNDS} rounds; headless chromium, server in the same process)`);
  } finally {
    await world.stop();
    await sink.stop();
  }
}

await main();
