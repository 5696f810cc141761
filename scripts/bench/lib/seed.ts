import { createHash } from "node:crypto";
import { runMigrations } from "../../../src/db/db.migrate.ts";
import { MIGRATIONS } from "../../../src/db/db.migrations.ts";
import { openDatabase } from "../../../src/db/db.open.ts";
import { seedEndpoint, seedOrganization } from "../../../src/test-utils/capture-fixtures.ts";
import type { LaunchContext } from "./types.ts";

/** The organization every seeded Weir holds (enterprise: no plan limit gets in a load's way). */
export const BENCH_ORG = "bench-org";
/** The capture endpoint a seeded Weir holds when asked for one. */
export const BENCH_ENDPOINT = { id: "bench-endpoint", slug: "bench" } as const;

export interface BenchSeed {
  /** Also seed the capture endpoint BENCH_ENDPOINT. */
  endpoint?: boolean;
  /** Also seed an API key of the organization with this secret, for a load that calls the API. */
  apiKey?: string;
}

/**
 * Migrates the data dir of `ctx` and seeds it before `weir serve` starts (the same migrations the
 * binary embeds, so `--binary` finds nothing left to apply): the organization, and what `seed`
 * asks for.
 */
export function seedWeirData(ctx: LaunchContext, seed: BenchSeed = {}): void {
  const db = openDatabase(ctx.dir);
  try {
    runMigrations(db.sqlite, MIGRATIONS);
    seedOrganization(db.sqlite, BENCH_ORG, "enterprise");
    if (seed.endpoint) {
      seedEndpoint(db.sqlite, { ...BENCH_ENDPOINT, organizationId: BENCH_ORG });
    }
    if (seed.apiKey !== undefined) {
      db.sqlite.run(
        "INSERT INTO api_keys (id, organization_id, name, key_hash, created_at) VALUES (?, ?, ?, ?, ?)",
        [
          "bench-key",
          BENCH_ORG,
          "bench",
          createHash("sha256").update(seed.apiKey).digest("hex"),
          "2026-01-01T00:00:00.000Z",
        ],
      );
    }
  } finally {
    db.close();
  }
}
