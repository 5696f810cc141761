#!/usr/bin/env bun
/**
 * Cost of one sandbox run: the worker pool every caller now uses, against the inline runner the
 * pool replaced (the same engine called on this thread), measured in the same run, in
 * interleaved rounds. Prints per-run wall time in µs (p50, p99, mean) and the pool/inline ratio.
 *
 *   bun scripts/bench/sandbox.ts [--runs 400] [--rounds 5]
 *
 * "pool, 1 at a time" is the latency a caller sees (one run in flight); "pool, 2 in flight"
 * divides wall time by the runs completed with both workers busy (throughput per run). Only
 * the inline figure is time taken from the main event loop; a pool run costs the main loop only
 * the message round-trip.
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { loadEngine, runIsolated } from "../../src/sandbox/sandbox.engine.ts";
import type { ScriptRequest } from "../../src/sandbox/sandbox.model.ts";
import {
  hostFunctionNames,
  resolveLimits,
  serializeInput,
} from "../../src/sandbox/sandbox.model.ts";
import { createSandbox } from "../../src/sandbox/sandbox.pool.ts";
import type { RunJob } from "../../src/sandbox/sandbox.protocol.ts";
import { callHostFunction } from "../../src/sandbox/sandbox.relay.ts";
import { formatRatio, median, ratio } from "./lib/stats.ts";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "400" }, rounds: { type: "string", default: "5" } },
});
const RUNS = Number(values.runs);
const ROUNDS = Number(values.rounds);
const LIMITS = { cpuMs: 1000, memoryBytes: 32 * 1024 * 1024 };

// A 1 KiB webhook reshaped by a transform, the sandbox's expected main use.
const INPUT = {
  method: "POST",
  path: "/hooks/github",
  headers: { "content-type": "application/json", "x-github-event": "push" },
  body: {
    ref: "refs/heads/main",
    commits: Array.from({ length: 8 }, (_, i) => ({ id: `c${i}`, message: "x".repeat(80) })),
  },
};
const WORKLOADS: Record<string, ScriptRequest> = {
  "transform 1 KiB": {
    code: `function transform(req) {
      return { text: req.body.ref + ": " + req.body.commits.length + " commits", n: req.body.commits.map((c) => c.id) };
    }`,
    entry: "transform",
    input: INPUT,
  },
  "transform + 1 host call": {
    code: `async function transform(req) {
      const user = await lookup(req.headers["x-github-event"]);
      return { text: user + " " + req.body.commits.length };
    }`,
    entry: "transform",
    input: INPUT,
    hostFunctions: { lookup: (event) => `user-for-${String(event)}` },
  },
};

type Mode = "inline" | "pool, 1 at a time" | "pool, 2 in flight";
const MODES: Mode[] = ["inline", "pool, 1 at a time", "pool, 2 in flight"];

const module = await loadEngine();
const sandbox = createSandbox({ limits: LIMITS, workers: 2, queueLimit: 64 });

function inlineJob(request: ScriptRequest): RunJob {
  const limits = resolveLimits(LIMITS, request.limits);
  const inputJson = serializeInput(request.input, limits);
  return {
    code: request.code,
    inputJson,
    entry: request.entry,
    limits,
    hostNames: hostFunctionNames(request),
  };
}

/** Per-run microseconds of `runs` runs in `mode` (for "2 in flight": wall time / runs, per pair). */
async function measure(mode: Mode, request: ScriptRequest, runs: number): Promise<number[]> {
  const samples: number[] = [];
  if (mode === "inline") {
    const functions = request.hostFunctions ?? {};
    const bridge = (name: string, args: string) =>
      callHostFunction(functions, name, args, LIMITS.memoryBytes);
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      // The job is built inside the timed part: the pool does the same work per run.
      const outcome = await runIsolated(module, inlineJob(request), bridge);
      samples.push((performance.now() - started) * 1000);
      if (!outcome.result.ok) throw new Error(JSON.stringify(outcome.result.error));
    }
  } else {
    const inFlight = mode === "pool, 1 at a time" ? 1 : 2;
    for (let i = 0; i < runs; i += inFlight) {
      const started = performance.now();
      const results = await Promise.all(
        Array.from({ length: inFlight }, () => sandbox.runScript(request)),
      );
      samples.push(((performance.now() - started) * 1000) / inFlight);
      const failed = results.find((r) => !r.ok);
      if (failed) throw new Error(JSON.stringify(failed));
    }
  }
  return samples;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.max(0, Math.ceil(sorted.length * fraction) - 1)] ?? Number.NaN;
}

const us = (value: number) => `${Math.round(value).toLocaleString("en-US")} µs`.padStart(10);

console.log(
  `sandbox bench: ${RUNS} runs x ${ROUNDS} interleaved rounds per mode; load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
console.log(
  "(a shared machine: compare the ratios, measured in this same run, not the absolute figures)\n",
);
for (const [name, request] of Object.entries(WORKLOADS)) {
  // Warm both sides: the pool's workers start and JIT their engines, the inline engine too.
  for (const mode of MODES) await measure(mode, request, 40);
  const samples = new Map<Mode, number[]>(MODES.map((m) => [m, []]));
  const roundP50 = new Map<Mode, number[]>(MODES.map((m) => [m, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = MODES.map((_, i) => MODES[(i + round) % MODES.length] as Mode);
    for (const mode of order) {
      const taken = await measure(mode, request, RUNS);
      samples.get(mode)?.push(...taken);
      roundP50.get(mode)?.push(median(taken));
    }
  }
  console.log(`${name}`);
  console.log(
    `  ${"mode".padEnd(20)}${"p50".padStart(10)}${"p99".padStart(10)}${"mean".padStart(10)}  p50 ratio to inline (median of rounds)`,
  );
  const inlineRounds = roundP50.get("inline") ?? [];
  for (const mode of MODES) {
    const sorted = [...(samples.get(mode) ?? [])].sort((a, b) => a - b);
    const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
    const paired = (roundP50.get(mode) ?? []).map((p50, i) =>
      ratio(p50, inlineRounds[i] ?? Number.NaN),
    );
    console.log(
      `  ${mode.padEnd(20)}${us(percentile(sorted, 0.5))}${us(percentile(sorted, 0.99))}${us(mean)}  ${formatRatio(median(paired))}`,
    );
  }
  console.log("");
}
sandbox.close();
