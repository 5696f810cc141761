import { join } from "node:path";
import { runLoadProcess } from "../lib/load-process.ts";
import { BENCH_ENDPOINT, seedWeirData } from "../lib/seed.ts";
import { weirServer } from "../lib/subjects.ts";
import type {
  CustomScenario,
  LaunchContext,
  Measurement,
  RunOptions,
  RunTarget,
  ServerSpec,
} from "../lib/types.ts";
import type { FanoutPlan, FanoutResult } from "./fanout-client.ts";

/** A fixed key of the seeded organization: the load process needs no set-up call. */
const API_KEY = `svc_${"Fanout42".repeat(4)}`;

/** Subscribers on the one endpoint (issue 5: 1,000). `BENCH_FANOUT_SUBSCRIBERS` overrides. */
const SUBSCRIBERS = Number(process.env.BENCH_FANOUT_SUBSCRIBERS ?? 1000);
/** Captures per second offered to both servers alike. `BENCH_FANOUT_RATE` overrides. */
const RATE = Number(process.env.BENCH_FANOUT_RATE ?? 100);

/** `weir serve` with an enterprise organization, its endpoint and its API key seeded. */
function seededWeir(ctx: LaunchContext): ServerSpec {
  seedWeirData(ctx, { endpoint: true, apiKey: API_KEY });
  return weirServer(ctx);
}

/**
 * Runs the load process behind the load pinning. The subject gets the subscribers; the baseline
 * (the same Weir, nobody subscribed) gets the same captures, so the ratio says what fan-out costs
 * capture.
 */
async function runFanout(target: RunTarget, options: RunOptions): Promise<Measurement> {
  const plan: FanoutPlan = {
    origin: target.origin,
    token: API_KEY,
    endpointId: BENCH_ENDPOINT.id,
    slug: BENCH_ENDPOINT.slug,
    subscribers: target.role === "subject" ? SUBSCRIBERS : 0,
    rate: RATE,
    durationSec: options.durationSec,
  };
  const result = await runLoadProcess<FanoutResult>(
    join(import.meta.dir, "fanout-client.ts"),
    plan,
    options,
    120_000,
  );
  const missing = result.expectedDeliveries - result.deliveries;
  process.stderr.write(`    ${describe(result)}\n`);
  return {
    rate: result.captureRate,
    latencyMs: result.deliveryMs ?? result.captureMs,
    non2xx: result.non2xx,
    errors: Math.max(0, missing) + result.socketsClosed + result.captureErrors,
    errorDetail: `missing deliveries ${Math.max(0, missing)}, sockets closed ${result.socketsClosed}`,
  };
}

const ms = (value: number | undefined) => (value === undefined ? "-" : `${value.toFixed(2)} ms`);

function describe(result: FanoutResult): string {
  const capture = `capture p50 ${ms(result.captureMs?.p50)} p99 ${ms(result.captureMs?.p99)}`;
  if (!result.deliveryMs) return `${result.captures} captures, no subscribers; ${capture}`;
  return (
    `${result.captures} captures → ${result.deliveries}/${result.expectedDeliveries} deliveries; ` +
    `delivery p50 ${ms(result.deliveryMs.p50)} p99 ${ms(result.deliveryMs.p99)}; ${capture}`
  );
}

/**
 * Issue 5: 1,000 subscribers on one endpoint, captures at a steady rate. Subject latency is
 * capture sent → push received, over every delivery; the baseline row (no subscribers) shows the
 * capture request's own latency. Ratio: captures/s kept while fanning out ÷ without subscribers.
 */
export const fanout: CustomScenario = {
  name: "fanout",
  description: `${SUBSCRIBERS} realtime subscribers on one endpoint, ${RATE} captures/s; latency = capture → push received`,
  weir: true,
  subject: seededWeir,
  baseline: seededWeir,
  run: runFanout,
  unit: "captures/s",
  loadKey: `fanout ${RATE}/s`,
  targets: { minRatio: 0.95, maxP99Ms: 50 },
};
