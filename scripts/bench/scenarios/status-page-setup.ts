import type { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { createApp } from "../../../src/app.ts";
import { openDatabase } from "../../../src/db/db.open.ts";
import { closeDeps, createDeps } from "../../../src/deps.ts";
import { loadConfig } from "../../../src/shared/config.ts";
import { RENDER_TTL_MS } from "../../../src/status-pages/status-pages.room.ts";
import { createFakeClock } from "../../../src/test-utils/fake-clock.ts";
import { createManualScheduler } from "../../../src/test-utils/manual-scheduler.ts";
import { BENCH_ORG, seedWeirData } from "../lib/seed.ts";
import type { LaunchContext } from "../lib/types.ts";

/** The page every status-page run reads. */
export const STATUS_SLUG = "bench-status";
export const STATUS_PATH = `/status/${STATUS_SLUG}`;
const MONITORS = 50;
const DAYS = 90;
const DAY_MS = 86_400_000;
const STAMP = "2026-01-01T00:00:00.000Z";

/**
 * A page with 50 push monitors, each with 90 days of daily rollups (a few bad
 * days here and there, so the bars are not all alike), written straight into the data dir.
 */
export function seedStatusPage(sqlite: Database, now: number): void {
  const today = now - (now % DAY_MS);
  sqlite.run(
    `INSERT INTO status_pages (id, organization_id, name, slug, primary_color, groups, created_at,
       updated_at) VALUES ('bench-page', ?, 'Bench status', ?, '#0f766e', ?, ?, ?)`,
    [BENCH_ORG, STATUS_SLUG, JSON.stringify([{ name: "Core", order: 0 }]), STAMP, STAMP],
  );
  const monitor = sqlite.prepare(
    `INSERT INTO monitors (id, organization_id, name, type, settings, interval_seconds,
       timeout_seconds, push_token, state, phase_ms, created_at, updated_at)
     VALUES (?, ?, ?, 'push', '{}', 60, 30, ?, 'up', 0, ?, ?)`,
  );
  const rollup = sqlite.prepare(
    `INSERT INTO monitor_rollups (monitor_id, period, bucket_start, checks, up, down)
     VALUES (?, 'day', ?, 1440, ?, ?)`,
  );
  const attach = sqlite.prepare(
    `INSERT INTO status_page_monitors (status_page_id, monitor_id, display_order, group_name)
     VALUES ('bench-page', ?, ?, ?)`,
  );
  sqlite.transaction(() => {
    for (let m = 0; m < MONITORS; m++) {
      const id = `bench-monitor-${m}`;
      monitor.run(id, BENCH_ORG, `Service ${m}`, `bench-token-${m}`, STAMP, STAMP);
      for (let d = 0; d < DAYS; d++) {
        const down = (m * 7 + d) % 23 === 0 ? 30 : 0;
        rollup.run(id, today - d * DAY_MS, 1440 - down, down);
      }
      attach.run(id, m, m % 2 === 0 ? "Core" : null);
    }
  })();
}

/** The Weir data dir of a launch, migrated and seeded with the page. */
export function seedStatusWeir(ctx: Pick<LaunchContext, "dir">): void {
  mkdirSync(ctx.dir, { recursive: true });
  seedWeirData(ctx as LaunchContext);
  const db = openDatabase(ctx.dir);
  try {
    seedStatusPage(db.sqlite, Date.now());
  } finally {
    db.close();
  }
}

/**
 * Renders the seeded page `renders` times through the whole app (routing, snapshot, HTML) with
 * the render cache expired before each one: the uncached cost. Also returns the page's bytes.
 */
export async function uncachedRenders(dir: string, renders: number) {
  const clock = createFakeClock(Date.now());
  const config = {
    ...loadConfig({ env: {}, flags: { data_dir: dir } }).config,
    log_level: "error" as const,
  };
  const deps = await createDeps(config, { clock, scheduler: createManualScheduler() });
  try {
    const { app } = createApp(deps);
    const timesMs: number[] = [];
    let body = "";
    for (let i = 0; i < renders; i++) {
      clock.advance(RENDER_TTL_MS);
      const startedAt = performance.now();
      const response = await app.handle(new Request(`http://127.0.0.1${STATUS_PATH}`));
      body = await response.text();
      timesMs.push(performance.now() - startedAt);
      if (response.status !== 200) throw new Error(`status page answered ${response.status}`);
    }
    timesMs.sort((a, b) => a - b);
    return { p50Ms: timesMs[Math.floor(timesMs.length / 2)] ?? 0, body };
  } finally {
    closeDeps(deps);
  }
}
