#!/usr/bin/env bun
/**
 * The outbound sender against the node:http sender it replaced and Bun's fetch, in the same run:
 * 1 KiB JSON POSTs to a raw Bun.serve sink (its own process, on cpu 1 when taskset exists),
 * `--concurrency` sends in flight, `--seconds` per round, `--rounds` interleaved rounds (the
 * order rotates). Two figures per subject: sends/s, and this process's CPU per send (user +
 * system, µs), the one to trust on a busy machine. Ratios are to the node:http sender; fetch is
 * shown for scale (it adds headers and has no hook on the resolved address, so it cannot be used).
 *
 * Usage: bun scripts/bench/outbound-sender.ts [--seconds 5] [--rounds 3] [--concurrency 16]
 */
import { spawn } from "bun";
import { createOutboundPolicy } from "../../src/http/outbound/outbound.policy.ts";
import { createOutboundSender } from "../../src/http/outbound/outbound.sender.ts";
import { freePort } from "../../src/test-utils/free-port.ts";
import { pollUntil } from "../../src/test-utils/poll.ts";
import { createNodeHttpSend } from "./lib/node-http-sender.ts";
import { formatRatio, median } from "./lib/stats.ts";

const argument = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const SECONDS = argument("--seconds", 5);
const ROUNDS = argument("--rounds", 3);
const CONCURRENCY = argument("--concurrency", 16);
const BODY = JSON.stringify({ type: "invoice.paid", data: { pad: "x".repeat(980) } });
const HEADERS: [string, string][] = [
  ["content-type", "application/json"],
  ["x-signature", "sha256=0123456789abcdef"],
];

type Send = (url: string) => Promise<boolean>;

const policy = createOutboundPolicy({ deny: [], allow: [] });
const sender = createOutboundSender({ policy, timeoutMs: 30_000 });
const nodeHttp = createNodeHttpSend(policy, 30_000);
const BODY_BYTES = new TextEncoder().encode(BODY);
const subjects: Record<string, Send> = {
  "node:http": async (url) => (await nodeHttp(url, "POST", HEADERS, BODY_BYTES)) === 200,
  fetch: async (url) => {
    const response = await fetch(url, { method: "POST", headers: HEADERS, body: BODY });
    await response.arrayBuffer();
    return response.ok;
  },
  sender: async (url) => {
    const result = await sender.send({ url, method: "POST", headers: HEADERS, body: BODY });
    return result.error === null;
  },
};

interface Round {
  rate: number;
  cpuMicros: number;
}

/** Sends for `seconds` with `CONCURRENCY` loops: completed sends per second, CPU µs per send. */
async function measure(send: Send, url: string, seconds: number): Promise<Round> {
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  let failed = 0;
  const loop = async () => {
    while (performance.now() < deadline) {
      if (await send(url)) done += 1;
      else failed += 1;
    }
  };
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  const used = process.cpuUsage(cpu);
  if (failed > 0) console.error(`  ${failed} sends failed`);
  return {
    rate: done / ((performance.now() - started) / 1000),
    cpuMicros: (used.user + used.system) / Math.max(1, done),
  };
}

const port = freePort();
const pinned = Bun.which("taskset") ? ["taskset", "-c", "1"] : [];
const sink = spawn(
  [...pinned, process.execPath, "scripts/bench/lib/baseline-server.ts", "--port", String(port)],
  {
    stdout: "ignore",
    stderr: "inherit",
  },
);
const url = `http://127.0.0.1:${port}/hook`;
try {
  await pollUntil(() => fetch(url, { method: "POST", body: "{}" }).then((r) => r.ok), {
    timeoutMs: 10_000,
    what: "the sink",
  });
  for (const send of Object.values(subjects)) await measure(send, url, 1); // warm-up
  const names = Object.keys(subjects);
  const rounds: Record<string, Round[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const shift = round % names.length;
    for (const name of [...names.slice(shift), ...names.slice(0, shift)]) {
      const result = await measure(subjects[name] as Send, url, SECONDS);
      rounds[name]?.push(result);
      console.error(
        `round ${round + 1} ${name}: ${Math.round(result.rate)} sends/s, ${result.cpuMicros.toFixed(1)} µs CPU/send`,
      );
    }
  }
  const figures = (name: string) => ({
    rate: median((rounds[name] ?? []).map((r) => r.rate)),
    cpu: median((rounds[name] ?? []).map((r) => r.cpuMicros)),
  });
  const base = figures("node:http");
  for (const name of names) {
    const { rate, cpu } = figures(name);
    console.log(
      `${name.padEnd(9)} ${String(Math.round(rate)).padStart(7)} sends/s ${formatRatio(rate / base.rate).padStart(7)}   ${cpu.toFixed(1).padStart(6)} µs CPU/send ${formatRatio(cpu / base.cpu).padStart(7)}`,
    );
  }
} finally {
  sink.kill();
}
