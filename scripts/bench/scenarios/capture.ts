import { runMigrations } from "../../../src/db/db.migrate.ts";
import { MIGRATIONS } from "../../../src/db/db.migrations.ts";
import { openDatabase } from "../../../src/db/db.open.ts";
import { seedEndpoint, seedOrganization } from "../../../src/test-utils/capture-fixtures.ts";
import { weirServer } from "../lib/subjects.ts";
import type { LaunchContext, Scenario, ServerSpec } from "../lib/types.ts";

const SLUG = "bench";

/**
 * `weir serve` with an endpoint to capture on: the data dir is migrated and seeded with an
 * organization and an endpoint before the server starts (the same migrations the binary embeds,
 * so `--binary` finds nothing left to apply). Durability stays at its default, `full`.
 */
function seededWeir(ctx: LaunchContext, env: Record<string, string> = {}): ServerSpec {
  const db = openDatabase(ctx.dir);
  try {
    runMigrations(db.sqlite, MIGRATIONS);
    seedOrganization(db.sqlite, "bench-org", "enterprise");
    seedEndpoint(db.sqlite, { id: "bench-endpoint", slug: SLUG, organizationId: "bench-org" });
  } finally {
    db.close();
  }
  return weirServer(ctx, env);
}

/** Durable capture of a small webhook: the figure issue 4 sets (≥ 0.40 of raw, p99 < 15 ms). */
export const capture1k: Scenario = {
  name: "capture-1k",
  description:
    "POST 1 KiB JSON to /w/{slug}: stored byte-exact, 200 after a synchronous=FULL commit",
  weir: true,
  subject: seededWeir,
  request: { method: "POST", path: `/w/${SLUG}`, bodyBytes: 1024 },
  targets: { minRatio: 0.4, maxP99Ms: 15 },
};

/** Durable capture of a large webhook: disk-bound (WAL and checkpoint write every byte twice). */
export const capture16k: Scenario = {
  name: "capture-16k",
  description:
    "POST 16 KiB JSON to /w/{slug}: stored byte-exact, 200 after a synchronous=FULL commit",
  weir: true,
  subject: seededWeir,
  request: { method: "POST", path: `/w/${SLUG}`, bodyBytes: 16 * 1024 },
  targets: { minRatio: 0.1 },
};
