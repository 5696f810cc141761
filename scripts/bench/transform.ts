#!/usr/bin/env bun
/**
 * Scenario `transform`: what a transformation adds to one event's delivery, at p50 and p99.
 * Three modes, measured in interleaved rounds of the same run (who goes first rotates):
 *   baseline  preparing the event without a transformation (the request completed and its body
 *             serialized, as a delivery does);
 *   reused    the same plus one run of a saved transformation through the transformations runner
 *             and the app's sandbox pool: the production path, where the worker keeps the
 *             version's frozen realm with the code compiled (sandbox.realm.ts);
 *   fresh     the same run with a fresh QuickJS runtime, context and prelude per run (the path
 *             before realms were reused), through the same pool.
 * Events are sent one at a time, so the figures are latency, not throughput. Target: the reused
 * mode adds < 0.5 ms per event at p50 over the baseline.
 *
 * Usage: bun scripts/bench/transform.ts [--events 2000] [--rounds 5]
 */
import { loadavg } from "node:os";
import { createSandbox } from "../../src/sandbox/sandbox.runner.ts";
import {
  ENTRY,
  interpretOutput,
  toScriptableRequest,
  wrapSource,
} from "../../src/transformations/transformations.model.ts";
import { createTransformationRunner } from "../../src/transformations/transformations.runner.ts";

const argument = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const EVENTS = argument("--events", 2000);
const ROUNDS = argument("--rounds", 5);
const TARGET_P50_MS = 0.5;

const BODY = JSON.stringify({
  id: "evt_1",
  type: "invoice.paid",
  data: { object: { amount: 4200, currency: "eur", pad: "x".repeat(880) } },
});
const EVENT = {
  method: "POST",
  path: "/in/stripe",
  query: {},
  headers: { "content-type": "application/json", "stripe-signature": "t=1,v1=abc" },
  body: BODY,
};
const CODE = `addHandler("transform", (request, context) => {
  const { id, type, data } = request.body;
  request.body = { id, type, amount: data.object.amount, currency: data.object.currency };
  request.headers["x-env"] = context.env.REGION;
  return request;
});`;

const sandbox = createSandbox({
  limits: { cpuMs: 1000, memoryBytes: 32 * 1024 * 1024 },
  workers: 2,
  queueLimit: 1000,
});
const runner = createTransformationRunner(sandbox);
const env = { REGION: "eu" };
const source = wrapSource(CODE);

type Mode = "baseline" | "reused" | "fresh";
const MODES: Mode[] = ["baseline", "reused", "fresh"];

function bodyOf(outcome: ReturnType<typeof interpretOutput>): string {
  if (!("request" in outcome)) throw new Error(`transformation failed: ${JSON.stringify(outcome)}`);
  return JSON.stringify(outcome.request.body);
}

const prepare: Record<Mode, () => unknown> = {
  baseline: () => JSON.stringify(toScriptableRequest(EVENT).body),
  reused: async () => bodyOf(await runner.run("t1", CODE, toScriptableRequest(EVENT), env)),
  fresh: async () => {
    const request = toScriptableRequest(EVENT);
    const result = await sandbox.runScript({ code: source, input: { request, env }, entry: ENTRY });
    if (!result.ok) throw new Error(JSON.stringify(result.error));
    return bodyOf(interpretOutput(result.output, request));
  },
};

async function timings(work: () => unknown, events: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < events; i++) {
    const started = performance.now();
    await work();
    samples.push(performance.now() - started);
  }
  return samples.sort((a, b) => a - b);
}

const at = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const ms = (value: number) => `${value.toFixed(3)} ms`.padStart(10);

const loadBefore = loadavg().map((l) => l.toFixed(1));
for (const mode of MODES) await timings(prepare[mode], 200); // warm-up: workers, JIT, realm
const p50 = new Map<Mode, number[]>(MODES.map((m) => [m, []]));
const p99 = new Map<Mode, number[]>(MODES.map((m) => [m, []]));
for (let round = 0; round < ROUNDS; round++) {
  const order = MODES.map((_, i) => MODES[(i + round) % MODES.length] as Mode);
  for (const mode of order) {
    const sorted = await timings(prepare[mode], EVENTS);
    p50.get(mode)?.push(at(sorted, 0.5));
    p99.get(mode)?.push(at(sorted, 0.99));
  }
  const line = MODES.map((m) => `${m} ${(p50.get(m)?.[round] ?? 0).toFixed(3)}`).join(", ");
  console.error(`round ${round + 1}: p50 ms ${line}`);
}
const reusedRuns = sandbox.stats().reusedRuns;
sandbox.close();

const base = median(p50.get("baseline") ?? []);
console.log(
  `transform: ${EVENTS} events x ${ROUNDS} interleaved rounds, medians of rounds; load average ${loadBefore.join(" ")} before, ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")} after (shared, busy machine: compare within this run)`,
);
console.log(
  `  ${"mode".padEnd(10)}${"p50".padStart(10)}${"p99".padStart(10)}${"added p50".padStart(12)}`,
);
for (const mode of MODES) {
  const mid = median(p50.get(mode) ?? []);
  const added = mode === "baseline" ? "" : ms(mid - base).padStart(12);
  console.log(`  ${mode.padEnd(10)}${ms(mid)}${ms(median(p99.get(mode) ?? []))}${added}`);
}
const roundRatios = (p50.get("fresh") ?? []).map((fresh, i) => {
  const reused = p50.get("reused")?.[i] ?? Number.NaN;
  return (fresh - (p50.get("baseline")?.[i] ?? 0)) / (reused - (p50.get("baseline")?.[i] ?? 0));
});
const added = median(p50.get("reused") ?? []) - base;
console.log(
  `  added cost, fresh / reused (median of per-round ratios): ${median(roundRatios).toFixed(1)}x; reused runs ${reusedRuns}`,
);
console.log(
  `  reused adds ${added.toFixed(3)} ms per event at p50  target < ${TARGET_P50_MS} ms: ${added < TARGET_P50_MS ? "MET" : "MISS"}`,
);
