#!/usr/bin/env bun
/**
 * The delivery outbox under load. Deliveries are endpoint forwards: each capture on an endpoint
 * with a forward_url writes its outbox row in the capture's own transaction, and the worker
 * sends it to a local sink that answers 200 at once. `weir serve` runs on cpu 0 (taskset), this
 * process (load + sinks) on cpu 1. Every phase starts a fresh server on a fresh data dir.
 *
 *   baseline   captures/s on an endpoint without forward_url (raw capture, same run)
 *   sustained  captures as fast as they are taken, with a forward each: deliveries/s reaching the sink
 *   latency    1,000 captures/s paced: capture sent → sink received, p50/p99
 *   breaker    the same 1,000/s to the healthy sink, plus 1,000/s to an endpoint whose
 *              destination answers 500 (its breaker opens): the healthy rate and p99
 *
 * Usage: bun scripts/bench/delivery.ts [--seconds 10] [--connections 64] [--rate 1000]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runMigrations } from "../../src/db/db.migrate.ts";
import { MIGRATIONS } from "../../src/db/db.migrations.ts";
import { openDatabase } from "../../src/db/db.open.ts";
import { freePort } from "../../src/test-utils/free-port.ts";
import { pollUntil } from "../../src/test-utils/poll.ts";
import { detectPinning } from "./lib/pinning.ts";
import { formatRatio } from "./lib/stats.ts";

const argument = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const SECONDS = argument("--seconds", 10);
const CONNECTIONS = argument("--connections", 64);
const RATE = argument("--rate", 1000);
const MAIN = join(import.meta.dir, "../../src/main.ts");
const pinning = detectPinning();
if (pinning.pinned)
  Bun.spawnSync(["taskset", "-cp", "1", String(process.pid)], { stdout: "ignore" });

/** Sink arrivals by capture body (the body is the capture's id in the load). */
const arrivals = new Map<string, number>();
const sinkOk = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    arrivals.set(await request.text(), performance.now());
    return new Response("ok");
  },
});
let failing = 0;
const sinkBad = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    await request.arrayBuffer();
    failing += 1;
    return new Response("down", { status: 500 });
  },
});

function seed(dir: string): void {
  const db = openDatabase(dir);
  try {
    runMigrations(db.sqlite, MIGRATIONS);
    const stamp = "2026-01-01T00:00:00.000Z";
    db.sqlite.run(
      "INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES ('o', 'bench', 'enterprise', ?, ?)",
      [stamp, stamp],
    );
    const endpoint = (id: string, forwardUrl: string | null) =>
      db.sqlite.run(
        `INSERT INTO debug_endpoints (id, organization_id, name, slug, status, forward_url, created_at, updated_at)
         VALUES (?, 'o', ?, ?, 'active', ?, ?, ?)`,
        [id, id, id, forwardUrl, stamp, stamp],
      );
    endpoint("raw", null);
    endpoint("ok", `http://127.0.0.1:${sinkOk.port}/in`);
    endpoint("bad", `http://127.0.0.1:${sinkBad.port}/in`);
  } finally {
    db.close();
  }
}

async function startWeir() {
  const dir = mkdtempSync(join(tmpdir(), "weir-bench-delivery-"));
  seed(dir);
  const port = freePort();
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith("WEIR_")),
  );
  Object.assign(env, { WEIR_CAPTURE_RATE_LIMIT: "off", WEIR_LOG_LEVEL: "error" });
  const argv = [...pinning.serverPrefix, process.execPath, MAIN, "serve", "--host", "127.0.0.1"];
  const proc = Bun.spawn([...argv, "--port", String(port), "--data-dir", dir], {
    env,
    stdout: "ignore",
    stderr: "inherit",
  });
  const url = `http://127.0.0.1:${port}`;
  await pollUntil(async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok, {
    timeoutMs: 20_000,
    what: "weir serve",
  });
  return {
    url,
    async stop() {
      proc.kill("SIGKILL");
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let sequence = 0;
/** Captures `slug`; the body is a fresh id, returned with the time it was sent. */
async function capture(url: string, slug: string): Promise<{ id: string; sentAt: number } | null> {
  const id = `${slug}-${++sequence}`;
  const sentAt = performance.now();
  const response = await fetch(`${url}/w/${slug}`, { method: "POST", body: id });
  await response.arrayBuffer();
  return response.ok ? { id, sentAt } : null;
}

/** As many captures as CONNECTIONS loops get answered for SECONDS; returns the ids sent. */
async function blast(url: string, slug: string, seconds: number) {
  const deadline = performance.now() + seconds * 1000;
  const sent: { id: string; sentAt: number }[] = [];
  const loop = async () => {
    while (performance.now() < deadline) {
      const done = await capture(url, slug);
      if (done) sent.push(done);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, loop));
  return sent;
}

/** `rate` captures per second for `seconds`, paced in 10 ms ticks; returns the ids sent. */
async function paced(url: string, slug: string, rate: number, seconds: number) {
  const sent: { id: string; sentAt: number }[] = [];
  const pending: Promise<unknown>[] = [];
  const start = performance.now();
  for (let tick = 0; tick < seconds * 100; tick++) {
    const due = start + tick * 10;
    const wait = due - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    for (let i = 0; i < rate / 100; i++) {
      pending.push(capture(url, slug).then((done) => done && sent.push(done)));
    }
  }
  await Promise.all(pending);
  return sent;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

/** Waits (up to 30 s) for the sent ids to arrive; latency of each that did. */
async function arrived(sent: { id: string; sentAt: number }[]) {
  await pollUntil(() => sent.every(({ id }) => arrivals.has(id)), {
    timeoutMs: 30_000,
    what: "deliveries to drain",
  }).catch(() => {});
  const latencies = sent.flatMap(({ id, sentAt }) => {
    const at = arrivals.get(id);
    return at === undefined ? [] : [at - sentAt];
  });
  return { latencies, missing: sent.length - latencies.length };
}

async function phase<T>(name: string, run: (url: string) => Promise<T>): Promise<T> {
  process.stderr.write(`  ${name}…\n`);
  const weir = await startWeir();
  try {
    // Warm-up: a second of each kind of traffic, unmeasured.
    await blast(weir.url, "ok", 1);
    return await run(weir.url);
  } finally {
    await weir.stop();
  }
}

console.error(`delivery bench: ${SECONDS} s phases, ${CONNECTIONS} connections; ${pinning.note}`);
const baseline = await phase("baseline (raw capture)", async (url) => {
  const sent = await blast(url, "raw", SECONDS);
  return sent.length / SECONDS;
});
const sustained = await phase("sustained deliveries", async (url) => {
  const startedAt = performance.now();
  const sent = await blast(url, "ok", SECONDS);
  const windowEnd = startedAt + SECONDS * 1000;
  const inWindow = sent.filter(({ id }) => (arrivals.get(id) ?? Infinity) <= windowEnd).length;
  const drained = await arrived(sent);
  const lastArrival = Math.max(...sent.map(({ id }) => arrivals.get(id) ?? 0));
  return {
    captures: sent.length / SECONDS,
    deliveriesInWindow: inWindow / SECONDS,
    endToEnd: (sent.length - drained.missing) / ((lastArrival - startedAt) / 1000),
    missing: drained.missing,
  };
});
const latency = await phase(`latency at ${RATE}/s`, async (url) => {
  const sent = await paced(url, "ok", RATE, SECONDS);
  const { latencies, missing } = await arrived(sent);
  return {
    rate: sent.length / SECONDS,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    missing,
  };
});
const breaker = await phase(
  `breaker: ${RATE}/s healthy + ${RATE}/s to a 500 destination`,
  async (url) => {
    const failedBefore = failing;
    const [sent] = await Promise.all([
      paced(url, "ok", RATE, SECONDS),
      paced(url, "bad", RATE, SECONDS),
    ]);
    const { latencies, missing } = await arrived(sent);
    const badAttempts = failing - failedBefore;
    return {
      rate: (sent.length - missing) / SECONDS,
      p99: percentile(latencies, 99),
      missing,
      badAttempts,
    };
  },
);

const fmt = (n: number) => Math.round(n).toLocaleString("en");
console.log(`raw capture baseline           ${fmt(baseline)} captures/s (1.00x)`);
console.log(
  `sustained deliveries           ${fmt(sustained.deliveriesInWindow)} deliveries/s within the window, ${fmt(sustained.endToEnd)}/s to drain (${formatRatio(sustained.endToEnd / baseline)} of raw capture); captures ${fmt(sustained.captures)}/s; missing ${sustained.missing}`,
);
console.log(
  `latency at ${RATE}/s              p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms (capture sent → sink); ${fmt(latency.rate)}/s offered; missing ${latency.missing}`,
);
console.log(
  `breaker open on the other      healthy ${fmt(breaker.rate)} deliveries/s (${formatRatio(breaker.rate / latency.rate)} of the same load alone), p99 ${breaker.p99.toFixed(1)} ms; attempts reaching the 500 sink: ${breaker.badAttempts}; missing ${breaker.missing}`,
);
console.log(
  `targets: ≥ 5,000 deliveries/s ${sustained.endToEnd >= 5000 ? "PASS" : "MISS"}; p99 < 100 ms ${latency.p99 < 100 ? "PASS" : "MISS"}; healthy drop < 10 % ${breaker.rate >= 0.9 * latency.rate ? "PASS" : "MISS"}`,
);
sinkOk.stop(true);
sinkBad.stop(true);
process.exit(0);
