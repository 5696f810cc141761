#!/usr/bin/env bun
/**
 * The outbound sender's throughput against Bun's fetch, measured in the same run: 1 KiB JSON
 * POSTs to a raw Bun.serve sink (its own process, on cpu 1 when taskset exists), `--concurrency`
 * sends in flight, `--seconds` per round, `--rounds` interleaved rounds (who goes first rotates).
 * The figure to compare across machines is the ratio sender / fetch; fetch is the baseline
 * because it is what forwards used before the sender existed. The sender pays for node:http
 * (no default headers), a policy check per send, and the resolved-address check per connection.
 *
 * Usage: bun scripts/bench/outbound-sender.ts [--seconds 5] [--rounds 3] [--concurrency 16]
 */
import { spawn } from "bun";
import { createOutboundPolicy } from "../../src/http/outbound/outbound.policy.ts";
import { createOutboundSender } from "../../src/http/outbound/outbound.sender.ts";
import { freePort } from "../../src/test-utils/free-port.ts";
import { pollUntil } from "../../src/test-utils/poll.ts";
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

const sender = createOutboundSender({
  policy: createOutboundPolicy({ deny: [], allow: [] }),
  timeoutMs: 30_000,
});
const subjects: Record<string, Send> = {
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

/** Sends for `seconds` with `CONCURRENCY` loops; returns completed sends per second. */
async function measure(send: Send, url: string, seconds: number): Promise<number> {
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
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  if (failed > 0) console.error(`  ${failed} sends failed`);
  return done / ((performance.now() - started) / 1000);
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
  const rates: Record<string, number[]> = { fetch: [], sender: [] };
  const names = Object.keys(subjects);
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      const rate = await measure(subjects[name] as Send, url, SECONDS);
      rates[name]?.push(rate);
      console.error(`round ${round + 1} ${name}: ${Math.round(rate)} sends/s`);
    }
  }
  const base = median(rates.fetch ?? []);
  for (const name of names) {
    const value = median(rates[name] ?? []);
    console.log(
      `${name.padEnd(8)} ${String(Math.round(value)).padStart(7)} sends/s  ${formatRatio(value / base)}`,
    );
  }
} finally {
  sink.kill();
}
