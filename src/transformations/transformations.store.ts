export interface TransformationRow {
  id: string;
  organizationId: string;
  name: string;
  code: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * The transformations room's storage; every method is scoped to one organization and is a whole
 * unit. SQLite (`transformations.sqlite.ts`) and PostgreSQL (`transformations.postgres.ts`)
 * answer alike.
 */
export interface TransformationsStore {
  insert(row: TransformationRow): Promise<void>;
  find(organizationId: string, id: string): Promise<TransformationRow | null>;
  /** The organization's transformations, newest first (ties: the larger id first). */
  list(organizationId: string): Promise<TransformationRow[]>;
  /** Writes the row's name, code and updated_at; a row of another organization is left alone. */
  update(row: TransformationRow): Promise<void>;
  /** False when there is no such transformation. */
  remove(organizationId: string, id: string): Promise<boolean>;
}
