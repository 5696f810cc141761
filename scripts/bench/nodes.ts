/**
 * Several Weir nodes on one PostgreSQL: capture throughput, and ingest → delivered throughput,
 * with 1, 2 and 3 nodes, as ratios to one node measured in the same run.
 *
 *   bun scripts/bench/nodes.ts [--duration 8] [--rounds 2] [--connections 48] [--nodes 1,2,3]
 *     [--workloads capture,ingest]
 *
 * Needs WEIR_TEST_PG_URL (a server this script may create databases on: eval
 * "$(scripts/ensure-postgres.sh)") and wrk. Each measurement gets a fresh database and fresh
 * nodes (`bun src/main.ts serve --database …`, one data dir each, one shared secret key); an
 * operator and an endpoint are created through the first node, then one wrk per node sends 1 KiB
 * captures to that node with its share of the connections, and the nodes' answers are summed.
 * Ingest: a source bridged to one http destination on a local sink; one wrk per node sends 1 KiB
 * webhooks to /in/{slug}, and the figure is what the sink received per second, from the load's
 * start until the last accepted event arrived (every node's workers share the one outbox).
 * Every node, PostgreSQL and the load share this machine's cores: on a small machine the table
 * shows what coordination costs, not what more machines would add.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { SQL, type Subprocess } from "bun";
import { parseWrkOutput } from "./lib/wrk-parse.ts";
import { buildWrkScript } from "./lib/wrk-script.ts";

const ROOT = join(import.meta.dir, "../..");
const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "8" },
    rounds: { type: "string", default: "2" },
    connections: { type: "string", default: "48" },
    nodes: { type: "string", default: "1,2,3" },
    workloads: { type: "string", default: "capture,ingest" },
  },
});
const durationSec = Number(values.duration);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const nodeCounts = (values.nodes ?? "1,2,3").split(",").map(Number);
type Workload = "capture" | "ingest";
const workloads = (values.workloads ?? "capture,ingest").split(",") as Workload[];
const server = process.env.WEIR_TEST_PG_URL;
if (!server) {
  console.error('nodes: set WEIR_TEST_PG_URL (eval "$(scripts/ensure-postgres.sh)")');
  process.exit(2);
}
if (!Bun.which("wrk")) {
  console.error("nodes: wrk is missing (apt-get install -y wrk)");
  process.exit(2);
}

const running: Subprocess[] = [];
const dirs: string[] = [];
process.on("exit", () => {
  for (const proc of running) proc.kill("SIGKILL");
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `weir_bench_nodes_${Date.now().toString(36)}`;
  const admin = new SQL(server as string, { max: 1 });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.close();
  const url = new URL(server as string);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const dropper = new SQL(server as string, { max: 1 });
      await dropper.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.close();
    },
  };
}

async function waitHealthy(origin: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const status = await fetch(`${origin}/healthz`)
      .then((r) => r.status)
      .catch(() => 0);
    if (status === 200) return;
    await Bun.sleep(100);
  }
  throw new Error(`${origin} did not answer /healthz within 60 s`);
}

async function startNodes(count: number, databaseUrl: string): Promise<string[]> {
  const secret = randomBytes(32).toString("hex");
  const origins: string[] = [];
  for (let i = 0; i < count; i++) {
    const dir = mkdtempSync(join(tmpdir(), "weir-bench-node-"));
    dirs.push(dir);
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const proc = Bun.spawn(
      [process.execPath, join(ROOT, "src/main.ts"), "serve", "--host", "127.0.0.1"],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? dir,
          WEIR_PORT: String(port),
          WEIR_DATA_DIR: dir,
          WEIR_DATABASE_URL: databaseUrl,
          WEIR_SECRET_KEY: secret,
          WEIR_LOG_LEVEL: "error",
          WEIR_CAPTURE_RATE_LIMIT: "off",
        },
        stdout: "ignore",
        stderr: "inherit",
      },
    );
    running.push(proc);
    origins.push(`http://127.0.0.1:${port}`);
    // One at a time: the first applies the migrations, the others find them applied.
    await waitHealthy(origins[i] as string);
  }
  return origins;
}

/** An operator whose organization is on the enterprise plan (no plan limit in the load's way). */
async function operator(origin: string, databaseUrl: string): Promise<string> {
  const register = await fetch(`${origin}/api/v1/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      email: "bench@example.com",
      password: "a-long-password",
      organization_name: "Bench",
    }),
  });
  const { token } = (await register.json()) as { token: string };
  const sql = new SQL(databaseUrl, { max: 1 });
  await sql`UPDATE organizations SET plan = 'enterprise'`;
  await sql.close();
  return token;
}

async function api(origin: string, token: string, path: string, body: unknown) {
  const response = await fetch(`${origin}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as { data: Record<string, string> };
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer.data;
}

/** The path the load is sent to: a capture endpoint, or a source bridged to the sink. */
async function prepare(workload: Workload, origin: string, databaseUrl: string): Promise<string> {
  const token = await operator(origin, databaseUrl);
  if (workload === "capture") {
    await api(origin, token, "/api/v1/endpoints", { name: "bench", slug: "bench-nodes" });
    return "/w/bench-nodes";
  }
  const source = await api(origin, token, "/api/v1/sources", { name: "bench", type: "webhook" });
  await api(origin, token, "/api/v1/bridges", {
    name: "bench",
    source_id: source.id,
    destinations: [{ name: "sink", type: "http", url: `${sinkOrigin}/hook`, max_retries: 0 }],
  });
  return `/in/${source.slug}`;
}

async function wrkAgainst(origin: string, path: string, conns: number, dir: string) {
  const script = join(dir, `load-${origin.split(":").at(-1)}.lua`);
  await Bun.write(script, buildWrkScript({ method: "POST", path, bodyBytes: 1024 }));
  const proc = Bun.spawn(
    ["wrk", "-t1", `-c${conns}`, `-d${durationSec}s`, "--latency", "-s", script, origin + path],
    { stdout: "pipe", stderr: "pipe" },
  );
  running.push(proc);
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  return parseWrkOutput(out);
}

const sinkPort = 40_000 + Math.floor(Math.random() * 10_000);
const sinkOrigin = `http://127.0.0.1:${sinkPort}`;
const sink = Bun.spawn(
  [process.execPath, join(import.meta.dir, "lib/sink-server.ts"), "--port", String(sinkPort)],
  { stdout: "ignore", stderr: "inherit" },
);
process.on("exit", () => sink.kill("SIGKILL"));

async function sinkState(): Promise<{ count: number; lastAt: number }> {
  return (await (await fetch(`${sinkOrigin}/_sink`)).json()) as { count: number; lastAt: number };
}

/** Waits until the sink holds `expected` deliveries, or nothing new came for 30 s. */
async function drained(expected: number): Promise<{ count: number; lastAt: number }> {
  let last = await sinkState();
  let progressAt = Date.now();
  while (last.count < expected && Date.now() - progressAt < 30_000) {
    await Bun.sleep(200);
    const now = await sinkState();
    if (now.count > last.count) progressAt = Date.now();
    last = now;
  }
  return last;
}

interface Figures {
  /** Answers 2xx per second, over the load's duration. */
  accepted: number;
  /** Ingest only: deliveries the sink received per second, from the load's start to the last. */
  delivered: number;
  errors: number;
  undelivered: number;
}

async function measure(workload: Workload, count: number): Promise<Figures> {
  const database = await freshDatabase();
  const origins = await startNodes(count, database.url);
  const path = await prepare(workload, origins[0] as string, database.url);
  const dir = mkdtempSync(join(tmpdir(), "weir-bench-wrk-"));
  dirs.push(dir);
  const per = Math.max(1, Math.floor(connections / count));
  await fetch(`${sinkOrigin}/_sink/reset`, { method: "POST" });
  const startedAt = Date.now();
  const results = await Promise.all(origins.map((origin) => wrkAgainst(origin, path, per, dir)));
  const ok = results.reduce((sum, r) => sum + r.totalRequests - r.non2xx, 0);
  const errors = results.reduce((sum, r) => sum + r.non2xx + r.errors, 0);
  const sunk = workload === "ingest" ? await drained(ok) : { count: 0, lastAt: startedAt };
  for (const proc of running.splice(0)) {
    proc.kill("SIGTERM");
    await proc.exited;
  }
  await database.drop();
  const deliveredSec = Math.max(0.001, (sunk.lastAt - startedAt) / 1000);
  return {
    accepted: results.reduce((sum, r) => sum + r.rate, 0),
    delivered: workload === "ingest" ? sunk.count / deliveredSec : 0,
    errors,
    undelivered: workload === "ingest" ? Math.max(0, ok - sunk.count) : 0,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const taken = new Map<string, Figures[]>();
for (let round = 0; round < rounds; round++) {
  // Rotate who goes first so drift on the machine hits every node count alike.
  const order = nodeCounts.map((_, i) => nodeCounts[(i + round) % nodeCounts.length] as number);
  for (const workload of workloads) {
    for (const count of order) {
      const figures = await measure(workload, count);
      const key = `${workload}/${count}`;
      taken.set(key, [...(taken.get(key) ?? []), figures]);
      console.error(
        `round ${round + 1}: ${workload} on ${count} node(s): ${Math.round(figures.accepted)} accepted/s` +
          (workload === "ingest" ? `, ${Math.round(figures.delivered)} delivered/s` : "") +
          `, errors ${figures.errors}, undelivered ${figures.undelivered}`,
      );
    }
  }
}

for (const workload of workloads) {
  const figure = (count: number, pick: (f: Figures) => number) =>
    median((taken.get(`${workload}/${count}`) ?? []).map(pick));
  const pick = (f: Figures) => (workload === "ingest" ? f.delivered : f.accepted);
  const one = figure(1, pick);
  const unit = workload === "ingest" ? "delivered/s (ingest → sink)" : "captures/s";
  console.log(`\n${workload}: nodes | ${unit}, median | ratio to 1 node | errors | undelivered`);
  for (const count of nodeCounts) {
    const rate = figure(count, pick);
    const errors = figure(count, (f) => f.errors);
    const undelivered = figure(count, (f) => f.undelivered);
    const ratio = one ? (rate / one).toFixed(2) : "-";
    console.log(`${count} | ${Math.round(rate)} | ${ratio} | ${errors} | ${undelivered}`);
  }
}
process.exit(0);
