import type { PostgresDb, PostgresSql, PostgresTx } from "../db/db.postgres-handle.ts";
import type { DedupConfig } from "../dedup/dedup.model.ts";
import type { Plan } from "../shared/plans.ts";
import { verificationColumn, verificationOf } from "../verification/verification.settings.ts";
import type { Source } from "./sources.model.ts";
import type { SourcesStore } from "./sources.store.ts";

type Row = Record<string, unknown>;

const toSource = (row: Row): Source => ({
  id: row.id as string,
  organizationId: row.organization_id as string,
  name: row.name as string,
  type: row.type as string,
  slug: row.slug as string,
  deduplicationConfig: row.deduplication_config
    ? (JSON.parse(row.deduplication_config as string) as DedupConfig)
    : null,
  verification: verificationOf(row.verification as string | null),
  createdAt: row.created_at as string,
  updatedAt: row.updated_at as string,
});

const dedupColumn = (source: Source) =>
  source.deduplicationConfig ? JSON.stringify(source.deduplicationConfig) : null;

/** PostgreSQL's code for a unique index refusing a row. */
const UNIQUE_VIOLATION = "23505";

const isUniqueViolation = (error: unknown) =>
  (error as { errno?: unknown } | null)?.errno === UNIQUE_VIOLATION;

/**
 * Inserts a source through the client or inside a transaction (a bridge's new source); false
 * (nothing stored) when the organization has a source of that name.
 */
export async function insertSourcePostgres(
  sql: PostgresSql | PostgresTx,
  source: Source,
): Promise<boolean> {
  const inserted = await sql`
    INSERT INTO sources (id, organization_id, name, type, slug, deduplication_config,
      created_at, updated_at, verification)
    VALUES (${source.id}, ${source.organizationId}, ${source.name}, ${source.type},
      ${source.slug}, ${dedupColumn(source)}, ${source.createdAt}, ${source.updatedAt},
      ${verificationColumn(source.verification)})
    ON CONFLICT (organization_id, name) DO NOTHING
    RETURNING id`;
  return inserted.length > 0;
}

export interface SourcesPostgresOptions {
  /** The dedup room's twin of `forgetSource`, in the transaction deleting the source. */
  forgetSource?(tx: PostgresTx, sourceId: string): Promise<void>;
}

/**
 * The sources' store over PostgreSQL. The unique (organization, name) index decides a race of two
 * writes of one name: the later one stores nothing and answers false, as on SQLite.
 */
export function createSourcesPostgresStore(
  pg: PostgresDb,
  options: SourcesPostgresOptions = {},
): SourcesStore {
  const { sql } = pg;
  const one = async (rows: Promise<Row[]>) => {
    const [row] = await rows;
    return row ? toSource(row) : null;
  };
  return {
    planOf: async (organizationId) => {
      const [row] = await sql`SELECT plan FROM organizations WHERE id = ${organizationId}`;
      return ((row?.plan as string | null) ?? "free") as Plan;
    },
    insert: (source) => insertSourcePostgres(sql, source),
    find: (organizationId, id) =>
      one(sql`SELECT * FROM sources WHERE id = ${id} AND organization_id = ${organizationId}`),
    findById: (id) => one(sql`SELECT * FROM sources WHERE id = ${id}`),
    findBySlug: (slug) => one(sql`SELECT * FROM sources WHERE slug = ${slug}`),
    list: async (organizationId) =>
      (
        await sql`SELECT * FROM sources WHERE organization_id = ${organizationId}
                  ORDER BY created_at DESC, id DESC`
      ).map(toSource),
    update: async (source) => {
      try {
        // The NOT EXISTS answers a taken name at once; the unique index settles a concurrent rename.
        const updated = await sql`
          UPDATE sources SET name = ${source.name}, deduplication_config = ${dedupColumn(source)},
            updated_at = ${source.updatedAt}, verification = ${verificationColumn(source.verification)}
          WHERE id = ${source.id} AND NOT EXISTS (
            SELECT 1 FROM sources AS other
            WHERE other.organization_id = sources.organization_id AND other.name = ${source.name}
              AND other.id <> ${source.id})
          RETURNING id`;
        return updated.length > 0;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },
    remove: (organizationId, id) =>
      sql.begin(async (tx) => {
        const removed = await tx`
          DELETE FROM sources WHERE id = ${id} AND organization_id = ${organizationId} RETURNING id`;
        if (removed.length === 0) return false;
        await options.forgetSource?.(tx, id);
        return true;
      }),
  };
}
