#!/usr/bin/env bun
/**
 * The delivery load generator, run as its own process behind the load pinning (cpu 1): it hosts
 * the sinks (one answering 200 at once, one answering 500), sets up a bridge through the API and
 * feeds the outbox one of three ways, then prints one JSON object (DeliveryLoadResult).
 *
 *   drain    writes events and their deliveries straight into the outbox (its own SQLite
 *            connection, as another node would) before the server sees them: it only delivers
 *   paced    ingests `rate` events/s to a bridge with one destination: enqueue → sink latency
 *   breaker  the same, the bridge has a second destination answering 500 (its breaker opens)
 *
 *   bun delivery-load.ts '{"origin":"http://127.0.0.1:8080","token":"svc_…","dbPath":"…/weir.db",
 *     "mode":"paced","rate":1000,"durationSec":10}'
 */
import { Database } from "bun:sqlite";

export interface DeliveryLoadPlan {
  origin: string;
  token: string;
  /** The server's database, for `drain`. */
  dbPath: string;
  mode: "drain" | "paced" | "breaker";
  /** Events per second offered (`paced`, `breaker`). */
  rate: number;
  durationSec: number;
}

export interface DeliveryLoadResult {
  /** Deliveries that reached the healthy sink per second of the measured window. */
  rate: number;
  /** Enqueue (ingest sent) → healthy sink, ms; null for `drain` (a backlog has no latency). */
  latencyMs: { p50: number; p90: number; p99: number } | null;
  delivered: number;
  /** Paced events whose delivery had not arrived 15 s after the window. */
  missing: number;
  ingestErrors: number;
  /** Attempts that reached the 500 sink. */
  failingAttempts: number;
}

const BODY_BYTES = 1024;
/** Drain mode's backlog per second of the run: more than the target rate, so it lasts. */
const DRAIN_PER_SECOND = 8_000;

const now = () => performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A 1 KiB JSON body whose first field the sinks read back: `{"seq":N,"pad":"…"}`. */
function bodyOf(seq: number): string {
  const head = `{"seq":${seq},"pad":"`;
  return `${head}${"x".repeat(BODY_BYTES - head.length - 2)}"}`;
}

function seqOf(body: string): number {
  return Number.parseInt(body.slice(7, body.indexOf(",")), 10);
}

function percentiles(values: number[]) {
  if (values.length === 0) return null;
  const sorted = values.sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99) };
}

async function api<T>(plan: DeliveryLoadPlan, method: string, path: string, body?: unknown) {
  const response = await fetch(`${plan.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${plan.token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

interface Bridge {
  id: string;
  source_id: string;
  destinations: { id: string; organization_id?: string }[];
}

function startSinks() {
  const arrivals = new Map<number, number>();
  let failing = 0;
  const ok = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      arrivals.set(seqOf(await request.text()), now());
      return new Response("ok");
    },
  });
  const bad = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      await request.arrayBuffer();
      failing += 1;
      return new Response("down", { status: 500 });
    },
  });
  return { arrivals, ok, bad, failing: () => failing };
}

type Sinks = ReturnType<typeof startSinks>;

async function createBridge(plan: DeliveryLoadPlan, sinks: Sinks): Promise<Bridge> {
  const destination = (name: string, sink: Bun.Server<undefined>) => ({
    name,
    type: "http",
    url: new URL("/hook", sink.url).href,
  });
  const destinations = [destination("healthy", sinks.ok)];
  if (plan.mode === "breaker") destinations.push(destination("failing", sinks.bad));
  const name = `bench-${plan.mode}-${process.pid}`;
  const created = await api<{ data: Bridge }>(plan, "POST", "/api/v1/bridges", {
    name,
    source: { name, type: "webhook" },
    destinations,
  });
  return created.data;
}

/**
 * Writes `count` events and their due deliveries straight into the outbox in one transaction
 * (its own connection, as another node would), before the server sees any of them: the drain
 * that follows is the server's delivery work alone, with no writer competing for the database.
 */
function fillOutbox(plan: DeliveryLoadPlan, bridge: Bridge, count: number): void {
  const db = new Database(plan.dbPath);
  try {
    db.run("PRAGMA busy_timeout = 5000");
    const org = db
      .query<{ organization_id: string }, [string]>(
        "SELECT organization_id FROM bridges WHERE id = ?",
      )
      .get(bridge.id)?.organization_id;
    const destinationId = bridge.destinations[0]?.id;
    if (!org || !destinationId) throw new Error("the bench bridge was not found in the database");
    const insertEvent = db.prepare(
      `INSERT INTO events (id, organization_id, source_id, method, path, query_string,
         raw_headers, body, created_at) VALUES (?, ?, ?, 'POST', '/', '', ?, ?, ?)`,
    );
    // An event's status lives in its narrow state row, with the count of its open deliveries.
    const insertEventState = db.prepare(
      "INSERT INTO event_states (event_id, status, open_deliveries) VALUES (?, 'pending', 1)",
    );
    const insertEventBridge = db.prepare(
      "INSERT INTO event_bridges (event_id, bridge_id) VALUES (?, ?)",
    );
    const insertDelivery = db.prepare(
      `INSERT INTO deliveries (id, kind, organization_id, subject_id, destination_key, webhook_id,
         status, attempts, max_retries, next_attempt_at, created_at, updated_at)
       VALUES (?, 'event', ?, ?, ?, ?, 'pending', 0, 15, ?, ?, ?)`,
    );
    const rawHeaders = JSON.stringify([["content-type", "application/json"]]);
    db.transaction(() => {
      const at = Date.now();
      const stamp = new Date(at).toISOString();
      for (let seq = 0; seq < count; seq++) {
        const eventId = `bench-event-${process.pid}-${seq}`;
        const body = Buffer.from(bodyOf(seq));
        insertEvent.run(eventId, org, bridge.source_id, rawHeaders, body, stamp);
        insertEventState.run(eventId);
        insertEventBridge.run(eventId, bridge.id);
        const id = `bench-delivery-${process.pid}-${seq}`;
        const webhookId = `msg_bench${process.pid}x${seq}`;
        // Due 1 ms apart, all in the past, as rows enqueued over the last seconds would be.
        const due = at - count + seq;
        insertDelivery.run(id, org, eventId, destinationId, webhookId, due, stamp, stamp);
      }
    })();
  } finally {
    db.close();
  }
}

/**
 * Sustained rate: the outbox holds `DRAIN_PER_SECOND` × the duration; the server finds it at its
 * next poll. Measured from the first arrival for the duration, or until the backlog ran out.
 */
async function drain(
  plan: DeliveryLoadPlan,
  sinks: Sinks,
  bridge: Bridge,
): Promise<DeliveryLoadResult> {
  const backlog = DRAIN_PER_SECOND * plan.durationSec;
  fillOutbox(plan, bridge, backlog);
  const firstBy = now() + 30_000;
  while (sinks.arrivals.size === 0) {
    if (now() > firstBy) throw new Error("no delivery reached the sink within 30 s");
    await sleep(2);
  }
  const start = now();
  const end = start + plan.durationSec * 1000;
  while (now() < end && sinks.arrivals.size < backlog) await sleep(5);
  const delivered = sinks.arrivals.size;
  return {
    rate: delivered / ((Math.min(now(), end) - start) / 1000),
    latencyMs: null,
    delivered,
    missing: 0,
    ingestErrors: 0,
    failingAttempts: 0,
  };
}

/** `rate` ingests per second in 10 ms ticks for the duration, then waits for their deliveries. */
async function paced(
  plan: DeliveryLoadPlan,
  sinks: Sinks,
  bridge: Bridge,
): Promise<DeliveryLoadResult> {
  const url = `${plan.origin}/api/v1/sources/${bridge.source_id}/ingest`;
  const sentAt = new Map<number, number>();
  let ingestErrors = 0;
  let seq = 0;
  const pending: Promise<void>[] = [];
  const ingest = async () => {
    const mine = seq++;
    sentAt.set(mine, now());
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: bodyOf(mine),
      });
      await response.arrayBuffer();
      if (!response.ok) ingestErrors += 1;
    } catch {
      ingestErrors += 1;
    }
  };
  const start = now();
  const windowEnd = start + plan.durationSec * 1000;
  const perTick = plan.rate / 100;
  for (let tick = 0; now() < windowEnd; tick++) {
    const wait = start + tick * 10 - now();
    if (wait > 0) await sleep(wait);
    const due = Math.floor((tick + 1) * perTick) - Math.floor(tick * perTick);
    for (let i = 0; i < due; i++) pending.push(ingest());
  }
  await Promise.all(pending);
  const drainBy = now() + 15_000;
  while (sinks.arrivals.size < sentAt.size - ingestErrors && now() < drainBy) await sleep(20);
  const latencies: number[] = [];
  let inWindow = 0;
  for (const [id, at] of sentAt) {
    const arrived = sinks.arrivals.get(id);
    if (arrived === undefined) continue;
    latencies.push(arrived - at);
    if (arrived <= windowEnd) inWindow += 1;
  }
  return {
    rate: inWindow / plan.durationSec,
    latencyMs: percentiles(latencies),
    delivered: latencies.length,
    missing: sentAt.size - ingestErrors - latencies.length,
    ingestErrors,
    failingAttempts: sinks.failing(),
  };
}

/**
 * Deletes what this run left in the outbox (a drain's backlog, a failing destination's waiting
 * rows): the warm-up and the measurement share a server, and rows whose sinks are gone would go
 * on failing during the next run.
 */
function clearLeftovers(plan: DeliveryLoadPlan, bridge: Bridge): void {
  const db = new Database(plan.dbPath);
  try {
    db.run("PRAGMA busy_timeout = 5000");
    db.run(
      `DELETE FROM deliveries WHERE next_attempt_at IS NOT NULL
         AND destination_key IN (SELECT value FROM json_each(?))`,
      [JSON.stringify(bridge.destinations.map((d) => d.id))],
    );
  } finally {
    db.close();
  }
}

if (import.meta.main) {
  const plan = JSON.parse(process.argv[2] ?? "{}") as DeliveryLoadPlan;
  const sinks = startSinks();
  const bridge = await createBridge(plan, sinks);
  const result =
    plan.mode === "drain" ? await drain(plan, sinks, bridge) : await paced(plan, sinks, bridge);
  clearLeftovers(plan, bridge);
  console.log(JSON.stringify(result));
  sinks.ok.stop(true);
  sinks.bad.stop(true);
  process.exit(0);
}
