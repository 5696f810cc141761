import type { Plan } from "../shared/plans.ts";
import type { Source } from "./sources.model.ts";

/**
 * The sources' storage, one implementation per database (sources.sqlite.ts, sources.postgres.ts).
 * Every lookup an organization makes is scoped to it; the ingest lookups (by id, by slug) are not,
 * since an ingest URL carries no credentials.
 */
export interface SourcesStore {
  /** The plan of the organization (`free` when none is set). */
  planOf(organizationId: string): Promise<Plan>;
  /** Inserts; false (nothing stored) when the organization has a source of that name. */
  insert(source: Source): Promise<boolean>;
  find(organizationId: string, id: string): Promise<Source | null>;
  findById(id: string): Promise<Source | null>;
  findBySlug(slug: string): Promise<Source | null>;
  /** Newest first (created_at, then id, descending). */
  list(organizationId: string): Promise<Source[]>;
  /** Stores the changes; false (nothing stored) when another source of the organization has the name. */
  update(source: Source): Promise<boolean>;
  /**
   * Deletes the source and, in the same transaction, its dedup keys and counters (the dedup
   * room's `forgetSource`, handed to the implementation); false when it was not there.
   */
  remove(organizationId: string, id: string): Promise<boolean>;
}
