/**
 * What the routing scenarios (`ingest`, `dedup`) share: a realistic 1 KiB webhook, a Weir data
 * dir seeded with an organization and an API key, the bridge created through the API (so the
 * destination gets its signing secret as in production), and one delivery sink process.
 */

import { join } from "node:path";
import { freePort } from "../../../src/test-utils/free-port.ts";
import { trackProcess } from "../lib/cleanup.ts";
import { detectPinning } from "../lib/pinning.ts";
import { seedWeirData } from "../lib/seed.ts";
import { weirServer } from "../lib/subjects.ts";
import type { LaunchContext, ServerSpec } from "../lib/types.ts";

export const SLUG = "bench";
/** A fixed key of the seeded organization: the load needs no login. */
const API_KEY = `svc_${"Ingest42".repeat(4)}`;
/** Replaced per request with a counter of the same width when bodies must differ. */
export const UNIQUE_TOKEN = "000000000000000";

/** `exclude_fields` with 3 paths, as the dedup target names it. */
export const EXCLUDE_FIELDS = ["body.timestamp", "body.meta.delivery_id", "body.items[*].seen_at"];

/** A filter every bench body passes (filtered-in), with a few operators to evaluate. */
const FILTERS = [
  { "body.type": { $in: ["order.created", "order.updated"] }, "body.total": { $gte: 100 } },
];

/** A 1,024-byte order webhook; `id` carries UNIQUE_TOKEN (never an excluded path). */
export function webhookBody(bytes = 1024): string {
  const body = (note: string) =>
    JSON.stringify({
      id: `evt_${UNIQUE_TOKEN}`,
      type: "order.updated",
      timestamp: 1_760_000_000,
      meta: { delivery_id: "dlv_01HZX3", attempt: 1, source: "shop-eu-1" },
      customer: { id: "cus_8812", email: "ana@example.com", name: "Ana Lima", tier: "gold" },
      items: Array.from({ length: 4 }, (_, i) => ({
        sku: `SKU-${1000 + i}`,
        qty: i + 1,
        price: 19.99 + i,
        title: `Item number ${i}`,
        seen_at: 1_760_000_000 + i,
      })),
      total: 321.5,
      currency: "EUR",
      note,
    });
  const pad = bytes - body("").length;
  if (pad < 0) throw new Error(`the webhook body needs at least ${body("").length} bytes`);
  return body("n".repeat(pad));
}

let sinkPort: number | null = null;

/** The sink process (started once, on the load's cpu), as `http://127.0.0.1:<port>`. */
export function sinkOrigin(): string {
  if (sinkPort === null) {
    const port = freePort();
    trackProcess(
      Bun.spawn(
        [
          ...detectPinning().loadPrefix,
          process.execPath,
          join(import.meta.dir, "../lib/sink-server.ts"),
          "--port",
          String(port),
        ],
        { stdin: "ignore", stdout: "ignore", stderr: "inherit" },
      ),
    ).unref(); // the harness exits when its work is done; the cleanup hook kills the sink

    sinkPort = port;
  }
  return `http://127.0.0.1:${sinkPort}`;
}

export async function sinkState(): Promise<{ count: number; lastAt: number }> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return (await (await fetch(`${sinkOrigin()}/_sink`)).json()) as {
        count: number;
        lastAt: number;
      };
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await Bun.sleep(50);
    }
  }
}

export async function resetSink(): Promise<void> {
  await sinkState();
  await fetch(`${sinkOrigin()}/_sink/reset`, { method: "POST" });
}

/** `weir serve` on a data dir holding an enterprise organization and its API key. */
export function seededWeir(ctx: LaunchContext): ServerSpec {
  sinkOrigin();
  seedWeirData(ctx, { apiKey: API_KEY });
  return weirServer(ctx);
}

const prepared = new Set<string>();

/**
 * Once per server: a bridge from a new source to one http destination on the sink whose
 * filters pass every bench body; returns the ingest path. The source's slug is random, so the
 * path is read back.
 */
export async function prepareRoute(origin: string, dedup: boolean): Promise<string> {
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await response.json()) as { data: Record<string, unknown> };
    if (!response.ok)
      throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer.data;
  };
  const known = prepared.has(origin);
  const sources = known
    ? ((await call("GET", "/api/v1/sources")) as unknown as { slug: string }[])
    : [];
  if (known && sources[0]) return `/in/${sources[0].slug}`;
  const source = await call("POST", "/api/v1/sources", {
    name: SLUG,
    type: "webhook",
    ...(dedup
      ? { deduplication_config: { exclude_fields: EXCLUDE_FIELDS, ttl_seconds: 300 } }
      : {}),
  });
  await call("POST", "/api/v1/bridges", {
    name: "bench",
    source_id: source.id,
    destinations: [
      { name: "sink", type: "http", url: `${sinkOrigin()}/hook`, max_retries: 0, filters: FILTERS },
    ],
  });
  prepared.add(origin);
  return `/in/${source.slug}`;
}

/** What the ingest path's own counters say it spent, since start, from /metrics. */
export interface IngestCosts {
  /** Filter evaluations and their total time. */
  evaluations: number;
  seconds: number;
  /** Requests keyed for deduplication and the time their keys took. */
  keyed: number;
  dedupSeconds: number;
}

export async function ingestCosts(origin: string): Promise<IngestCosts> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const read = (name: string) =>
    Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);
  return {
    evaluations: read("weir_ingest_filter_evaluations_total"),
    seconds: read("weir_ingest_filter_seconds_total"),
    keyed: read("weir_dedup_keyed_total"),
    dedupSeconds: read("weir_dedup_seconds_total"),
  };
}
