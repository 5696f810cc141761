import { join } from "node:path";
import { DB_FILE } from "../../../src/db/db.open.ts";
import { runLoadProcess } from "../lib/load-process.ts";
import { seedWeirData } from "../lib/seed.ts";
import { weirServer } from "../lib/subjects.ts";
import type {
  CustomScenario,
  LaunchContext,
  Measurement,
  RunOptions,
  RunTarget,
  ServerSpec,
} from "../lib/types.ts";
import { runWrk } from "../lib/wrk.ts";
import type { DeliveryLoadPlan, DeliveryLoadResult } from "./delivery-load.ts";

/** A fixed key of the seeded organization: the load process creates its bridge with it. */
const API_KEY = `svc_${"Deliver4".repeat(4)}`;
/** Events per second offered by the paced scenarios. `BENCH_DELIVERY_RATE` overrides. */
const RATE = Number(process.env.BENCH_DELIVERY_RATE ?? 1000);

/** `weir serve` with an enterprise organization, its API key and a capture endpoint seeded. */
function seededWeir(ctx: LaunchContext): ServerSpec {
  seedWeirData(ctx, { endpoint: true, apiKey: API_KEY });
  return weirServer(ctx);
}

/** The load process (delivery-load.ts) behind the load pinning. */
async function runLoad(
  mode: DeliveryLoadPlan["mode"],
  target: RunTarget,
  options: RunOptions,
): Promise<Measurement> {
  const plan: DeliveryLoadPlan = {
    origin: target.origin,
    token: API_KEY,
    dbPath: join(options.dir, "data", DB_FILE),
    mode,
    rate: RATE,
    durationSec: options.durationSec,
  };
  const result = await runLoadProcess<DeliveryLoadResult>(
    join(import.meta.dir, "delivery-load.ts"),
    plan,
    options,
    90_000,
  );
  process.stderr.write(`    ${mode}: ${describe(result)}\n`);
  return {
    rate: result.rate,
    latencyMs: result.latencyMs,
    non2xx: result.ingestErrors,
    errors: result.missing,
    errorDetail: `missing deliveries ${result.missing}`,
  };
}

const ms = (value: number | undefined) => (value === undefined ? "-" : `${value.toFixed(1)} ms`);

function describe(r: DeliveryLoadResult): string {
  const latency = r.latencyMs
    ? `; enqueue → sink p50 ${ms(r.latencyMs.p50)} p99 ${ms(r.latencyMs.p99)}`
    : "";
  const failing = r.failingAttempts ? `; attempts reaching the 500 sink ${r.failingAttempts}` : "";
  return `${r.delivered} delivered, ${Math.round(r.rate)}/s${latency}${failing}; missing ${r.missing}`;
}

/** Raw capture on the same seeded Weir (1 KiB JSON, wrk): what every delivery ratio is taken against. */
const rawCapture = (target: RunTarget, options: RunOptions) =>
  runWrk({ method: "POST", path: "/w/bench", bodyBytes: 1024 }, target, options);

const DELIVERY_LOAD = "delivery: baseline = raw capture of 1 KiB (wrk) on the same Weir";

/**
 * Sustained deliveries on one core: the outbox is kept full from outside the server (another
 * process writes events and their deliveries, as a second node would), so the server does
 * nothing but claim, prepare, sign, send and record. Ratio: deliveries/s ÷ raw captures/s.
 */
export const delivery: CustomScenario = {
  name: "delivery",
  description:
    "deliveries/s from a full outbox (events written by another process) to a sink answering 200",
  weir: true,
  subject: seededWeir,
  baseline: seededWeir,
  run: (target, options) =>
    target.role === "baseline" ? rawCapture(target, options) : runLoad("drain", target, options),
  unit: "ops/s",
  loadKey: DELIVERY_LOAD,
  targets: { minRate: 5000 },
};

/** Latency at a steady rate: ingest sent → delivery received by the sink. */
export const deliveryLatency: CustomScenario = {
  name: "delivery-latency",
  description: `${RATE} events/s ingested to a bridge with one destination; latency = ingest sent → sink`,
  weir: true,
  subject: seededWeir,
  baseline: seededWeir,
  run: (target, options) =>
    target.role === "baseline" ? rawCapture(target, options) : runLoad("paced", target, options),
  unit: "ops/s",
  loadKey: DELIVERY_LOAD,
  targets: { maxP99Ms: 100 },
};

/**
 * A failing destination must not slow a healthy one: the same paced load, the bridge with a
 * second destination answering 500 (its breaker opens), against the healthy one alone.
 */
export const deliveryBreaker: CustomScenario = {
  name: "delivery-breaker",
  description: `${RATE} events/s to a bridge whose second destination answers 500; ratio = healthy rate ÷ alone`,
  weir: true,
  subject: seededWeir,
  baseline: seededWeir,
  run: (target, options) =>
    runLoad(target.role === "baseline" ? "paced" : "breaker", target, options),
  unit: "deliveries/s",
  loadKey: `delivery-breaker: baseline = ${RATE} events/s to the healthy destination alone`,
  targets: { minRatio: 0.9, maxP99Ms: 100 },
};
