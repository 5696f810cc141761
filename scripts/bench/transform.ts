#!/usr/bin/env bun
/**
 * Scenario `transform`: what a transformation adds to one event's delivery, at p50 and p99.
 * Baseline, measured in the same run: preparing the event without a transformation (the request
 * completed and its body serialized, as a delivery does). Subject: the same plus one run of a
 * saved transformation through the transformations runner and the app's sandbox (a fresh QuickJS
 * runtime per run, so runs stay isolated; the wrapped source is kept per transformation version).
 * Events are sent one at a time, so the figure is latency, not throughput. Target: p50 < 0.5 ms.
 *
 * Usage: bun scripts/bench/transform.ts [--events 2000] [--rounds 3]
 */
import { createSandbox } from "../../src/sandbox/sandbox.runner.ts";
import { toScriptableRequest } from "../../src/transformations/transformations.model.ts";
import { createTransformationRunner } from "../../src/transformations/transformations.runner.ts";

const argument = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const EVENTS = argument("--events", 2000);
const ROUNDS = argument("--rounds", 3);
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

function prepareWithout(): string {
  const request = toScriptableRequest(EVENT);
  return JSON.stringify(request.body);
}

async function prepareWith(): Promise<string> {
  const run = await runner.run("t1", CODE, toScriptableRequest(EVENT), env);
  if (!("request" in run)) throw new Error(`transformation failed: ${JSON.stringify(run)}`);
  return JSON.stringify(run.request.body);
}

async function timings(work: () => unknown): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < EVENTS; i++) {
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

await timings(prepareWith); // warm-up: workers started, engine JIT-ed
const rounds: { base50: number; with50: number; with99: number }[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const base = await timings(prepareWithout);
  const subject = await timings(prepareWith);
  rounds.push({ base50: at(base, 0.5), with50: at(subject, 0.5), with99: at(subject, 0.99) });
  console.error(
    `round ${round + 1}: baseline p50 ${at(base, 0.5).toFixed(4)} ms, with transformation p50 ${at(subject, 0.5).toFixed(3)} ms, p99 ${at(subject, 0.99).toFixed(3)} ms`,
  );
}
sandbox.close();
const base50 = median(rounds.map((r) => r.base50));
const with50 = median(rounds.map((r) => r.with50));
const added = with50 - base50;
console.log(
  `transform: ${EVENTS} events x ${ROUNDS} rounds, medians of rounds (shared, busy machine)`,
);
console.log(`  baseline (no transformation) p50   ${base50.toFixed(4)} ms`);
console.log(
  `  with transformation p50            ${with50.toFixed(3)} ms (ratio ${(with50 / base50).toFixed(1)}x baseline)`,
);
console.log(
  `  with transformation p99            ${median(rounds.map((r) => r.with99)).toFixed(3)} ms`,
);
console.log(
  `  added per event p50                ${added.toFixed(3)} ms  target < ${TARGET_P50_MS} ms: ${added < TARGET_P50_MS ? "MET" : "MISS"}`,
);
