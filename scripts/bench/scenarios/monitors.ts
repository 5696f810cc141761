import { Database } from "bun:sqlite";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { runMigrations } from "../../../src/db/db.migrate.ts";
import { MIGRATIONS } from "../../../src/db/db.migrations.ts";
import { DB_FILE, openDatabase } from "../../../src/db/db.open.ts";
import { nextSlotAfter, phaseOf } from "../../../src/monitors/monitors.model.ts";
import { seedOrganization } from "../../../src/test-utils/capture-fixtures.ts";
import { freePort } from "../../../src/test-utils/free-port.ts";
import { trackProcess } from "../lib/cleanup.ts";
import { detectPinning } from "../lib/pinning.ts";
import { readCpuSeconds } from "../lib/proc.ts";
import { BENCH_ORG } from "../lib/seed.ts";
import { percentile } from "../lib/stats.ts";
import { weirServer } from "../lib/subjects.ts";
import type {
  CustomScenario,
  LaunchContext,
  Measurement,
  RunOptions,
  RunTarget,
} from "../lib/types.ts";

/**
 * Uptime monitors at scale: N http monitors checking a local target that answers 200, in real
 * time (the interval's minimum is 10 s, so nothing is sped up). Figures per window: schedule drift
 * (when a check started − the slot it was due at, read from the check rows) and the server's CPU
 * as a percentage of one core. The baseline sends the same checks at the same phases from a plain
 * fetch loop that stores nothing: subject CPU ÷ loop CPU is what scheduling, storing the check,
 * its rollups and the monitor's state cost on top of sending the request.
 *
 * Measure with a warm-up of at least one interval and a window of at least two:
 *   bun scripts/bench/run.ts monitors --warmup 30 --duration 60 --rounds 3
 *   bun scripts/bench/run.ts monitors-10k --warmup 60 --duration 120 --rounds 3
 * `BENCH_MONITORS` and `BENCH_MONITOR_INTERVAL` override the first scenario's count and interval
 * (a quick check: BENCH_MONITORS=200 … monitors --warmup 10 --duration 20 --rounds 1).
 */

const TARGET_PORT = freePort();
const TARGET = `http://127.0.0.1:${TARGET_PORT}/health`;
let target: Subprocess | null = null;

/** The target, started once for every round, on the load core like any load generator. */
function ensureTarget(): void {
  if (target) return;
  const argv = [
    ...detectPinning().loadPrefix,
    process.execPath,
    join(import.meta.dir, "monitors-target.ts"),
    String(TARGET_PORT),
  ];
  target = trackProcess(Bun.spawn(argv, { stdout: "ignore", stderr: "inherit" }));
  // It must not keep the harness alive after the report: the exit hook kills it.
  target.unref();
}

interface Shape {
  monitors: number;
  intervalSeconds: number;
}

/** Weir with the shape's monitors written straight into its data dir, each due at its phase. */
function seededMonitors(shape: Shape, ctx: LaunchContext) {
  ensureTarget();
  const db = openDatabase(ctx.dir);
  try {
    runMigrations(db.sqlite, MIGRATIONS);
    seedOrganization(db.sqlite, BENCH_ORG, "enterprise");
    const insert = db.sqlite.prepare(
      `INSERT INTO monitors (id, organization_id, name, type, settings, interval_seconds,
         timeout_seconds, retries, paused, state, phase_ms, next_check_at, created_at, updated_at)
       VALUES (?, ?, ?, 'http', ?, ?, 10, 0, 0, 'pending', ?, ?, ?, ?)`,
    );
    const settings = JSON.stringify({ url: TARGET, method: "GET", expected_status: "200-299" });
    const now = Date.now();
    const at = new Date(now).toISOString();
    db.sqlite.transaction(() => {
      for (let i = 0; i < shape.monitors; i++) {
        const id = `bench-monitor-${i}`;
        const phase = phaseOf(id, shape.intervalSeconds);
        const due = nextSlotAfter(now, phase, shape.intervalSeconds);
        insert.run(
          id,
          BENCH_ORG,
          `monitor ${i}`,
          settings,
          shape.intervalSeconds,
          phase,
          due,
          at,
          at,
        );
      }
    })();
  } finally {
    db.close();
  }
  return weirServer(ctx);
}

/** The plain loop (monitors-loop.ts) as the baseline server. */
function plainLoop(shape: Shape, ctx: LaunchContext) {
  ensureTarget();
  const plan = { port: ctx.port, target: TARGET, ...shape };
  return {
    command: [ctx.bunPath, join(import.meta.dir, "monitors-loop.ts"), JSON.stringify(plan)],
    healthPath: "/",
  };
}

/** Drift of each Weir check started in [from, to): its start (end − response time) − its slot. */
function weirDrifts(options: RunOptions, from: number, to: number): number[] {
  const db = new Database(join(options.dir, "data", DB_FILE), { readonly: true });
  try {
    const rows = db
      .query<
        { checked_at: string; response_time_ms: number | null; phase_ms: number; period: number },
        [string, string]
      >(
        `SELECT c.checked_at, c.response_time_ms, m.phase_ms, m.interval_seconds * 1000 AS period
         FROM monitor_checks c JOIN monitors m ON m.id = c.monitor_id
         WHERE c.checked_at >= ? AND c.checked_at < ?`,
      )
      .all(new Date(from).toISOString(), new Date(to).toISOString());
    return rows.map((row) => {
      const start = Date.parse(row.checked_at) - (row.response_time_ms ?? 0);
      const late = (((start - row.phase_ms) % row.period) + row.period) % row.period;
      // A start a hair before its slot (clock rounding) is early, not a whole period late.
      return late > row.period - 1000 ? late - row.period : late;
    });
  } finally {
    db.close();
  }
}

let loopCpuPercent: number | null = null;

async function measure(shape: Shape, run: RunTarget, options: RunOptions): Promise<Measurement> {
  const from = Date.now();
  const cpuBefore = await readCpuSeconds(run.pid);
  await Bun.sleep(options.durationSec * 1000);
  const cpuAfter = await readCpuSeconds(run.pid);
  const to = Date.now();
  const drifts =
    run.role === "subject"
      ? weirDrifts(options, from, to)
      : (
          (await (await fetch(`${run.origin}/figures?from=${from}&to=${to}`)).json()) as {
            drifts: number[];
          }
        ).drifts;
  const cpuPercent =
    cpuBefore === null || cpuAfter === null
      ? Number.NaN
      : ((cpuAfter - cpuBefore) * 100_000) / (to - from);
  const expected = (shape.monitors * (to - from)) / (shape.intervalSeconds * 1000);
  const short = Math.max(0, 1 - drifts.length / expected) * 100;
  const p = (fraction: number) => percentile(drifts, fraction);
  if (run.role === "baseline") loopCpuPercent = cpuPercent;
  const versus =
    run.role === "subject" && loopCpuPercent
      ? `, ${(cpuPercent / loopCpuPercent).toFixed(1)}× the plain loop's CPU`
      : "";
  process.stderr.write(
    `    ${run.role}: ${drifts.length} checks (${short.toFixed(1)} % short of ${Math.round(expected)}), drift p50 ${p(0.5)} ms p99 ${p(0.99)} ms, CPU ${cpuPercent.toFixed(1)} % of one core${versus}\n`,
  );
  return {
    rate: drifts.length / ((to - from) / 1000),
    latencyMs: { p50: p(0.5), p90: p(0.9), p99: p(0.99) },
    non2xx: 0,
    errors: 0,
    figures: {
      "drift p99 ms": p(0.99),
      "CPU % of one core": cpuPercent,
      "checks short %": short,
    },
  };
}

function monitorsScenario(name: string, shape: Shape): CustomScenario {
  return {
    name,
    description: `${shape.monitors} http monitors every ${shape.intervalSeconds} s against a local 200; drift (start − slot) and CPU; baseline = a plain fetch loop at the same phases`,
    weir: true,
    subject: (ctx) => seededMonitors(shape, ctx),
    baseline: (ctx) => plainLoop(shape, ctx),
    run: (run, options) => measure(shape, run, options),
    unit: "checks/s",
    loadKey: `${name}: baseline = the same checks from a plain fetch loop`,
    // Ratio ≈ 1 (both send every check); drift is the figure that matters.
    targets: { maxP99Ms: 1000, maxFigures: { "checks short %": 1 } },
  };
}

export const monitors = monitorsScenario("monitors", {
  monitors: Number(process.env.BENCH_MONITORS ?? 2000),
  intervalSeconds: Number(process.env.BENCH_MONITOR_INTERVAL ?? 30),
});

export const monitors10k = monitorsScenario("monitors-10k", {
  monitors: 10_000,
  intervalSeconds: 60,
});
