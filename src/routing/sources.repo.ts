import type { DbHandle } from "../db/db.tx.ts";
import type { DedupConfig } from "../dedup/dedup.model.ts";
import type { Plan } from "../shared/plans.ts";
import { verificationColumn, verificationOf } from "../verification/verification.settings.ts";
import type { Source } from "./sources.model.ts";

interface SourceRow {
  id: string;
  organization_id: string;
  name: string;
  type: string;
  slug: string;
  deduplication_config: string | null;
  verification: string | null;
  created_at: string;
  updated_at: string;
}

const toSource = (row: SourceRow): Source => ({
  id: row.id,
  organizationId: row.organization_id,
  name: row.name,
  type: row.type,
  slug: row.slug,
  deduplicationConfig: row.deduplication_config
    ? (JSON.parse(row.deduplication_config) as DedupConfig)
    : null,
  verification: verificationOf(row.verification),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** All SQL of sources; every organization-facing lookup is scoped to the organization. */
export function createSourcesRepo(db: DbHandle) {
  const { sqlite } = db;
  const insert = sqlite.prepare(
    `INSERT INTO sources (id, organization_id, name, type, slug, deduplication_config, created_at, updated_at, verification)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (organization_id, name) DO NOTHING`,
  );
  const byId = sqlite.prepare<SourceRow, [string, string]>(
    "SELECT * FROM sources WHERE id = ? AND organization_id = ?",
  );
  const byAnyId = sqlite.prepare<SourceRow, [string]>("SELECT * FROM sources WHERE id = ?");
  const bySlug = sqlite.prepare<SourceRow, [string]>("SELECT * FROM sources WHERE slug = ?");
  // The plan is the organization's (the auth room's table), read as capture reads it.
  const planOf = sqlite.prepare<{ plan: string | null }, [string]>(
    "SELECT plan FROM organizations WHERE id = ?",
  );
  const list = sqlite.prepare<SourceRow, [string]>(
    "SELECT * FROM sources WHERE organization_id = ? ORDER BY created_at DESC, id DESC",
  );
  // One statement, so no other write can take the name between the check and the change.
  const update = sqlite.prepare(
    `UPDATE sources SET name = ?1, deduplication_config = ?2, updated_at = ?3, verification = ?5
     WHERE id = ?4 AND NOT EXISTS (
       SELECT 1 FROM sources AS other
       WHERE other.organization_id = sources.organization_id AND other.name = ?1 AND other.id <> ?4
     )`,
  );
  const remove = sqlite.prepare("DELETE FROM sources WHERE id = ? AND organization_id = ?");
  return {
    /** The plan of the organization owning a source (`free` when none is set). */
    planOf(organizationId: string): Plan {
      return (planOf.get(organizationId)?.plan ?? "free") as Plan;
    },
    /** Inserts; false (nothing stored) when the organization has a source of that name. */
    insert(source: Source): boolean {
      const { changes } = insert.run(
        source.id,
        source.organizationId,
        source.name,
        source.type,
        source.slug,
        source.deduplicationConfig ? JSON.stringify(source.deduplicationConfig) : null,
        source.createdAt,
        source.updatedAt,
        verificationColumn(source.verification),
      );
      return changes > 0;
    },
    find(organizationId: string, id: string): Source | null {
      const row = byId.get(id, organizationId);
      return row ? toSource(row) : null;
    },
    /** Any source by id: the ingest URL carries no credentials. */
    findById(id: string): Source | null {
      const row = byAnyId.get(id);
      return row ? toSource(row) : null;
    },
    findBySlug(slug: string): Source | null {
      const row = bySlug.get(slug);
      return row ? toSource(row) : null;
    },
    list(organizationId: string): Source[] {
      return list.all(organizationId).map(toSource);
    },
    /** Stores the changes; false (nothing stored) when another source of the organization has the name. */
    update(source: Source): boolean {
      const dedup = source.deduplicationConfig ? JSON.stringify(source.deduplicationConfig) : null;
      const verification = verificationColumn(source.verification);
      return update.run(source.name, dedup, source.updatedAt, source.id, verification).changes > 0;
    },
    remove(organizationId: string, id: string): boolean {
      return remove.run(id, organizationId).changes > 0;
    },
  };
}

export type SourcesRepo = ReturnType<typeof createSourcesRepo>;
