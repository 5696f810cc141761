/** A stored secret; `sealedValue` never leaves the room unopened. */
export interface SecretRow {
  id: string;
  organizationId: string;
  name: string;
  /** The value sealed above the store: a store only ever holds ciphertext. */
  sealedValue: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * The secrets room's storage; every method is scoped to one organization and is a whole unit.
 * SQLite (`secrets.sqlite.ts`) and PostgreSQL (`secrets.postgres.ts`) answer alike.
 */
export interface SecretsStore {
  /** False when the organization already has a secret of that name (also when a racing insert took it). */
  insert(row: SecretRow): Promise<boolean>;
  find(organizationId: string, name: string): Promise<SecretRow | null>;
  /** The organization's secrets, newest first, then by name. */
  list(organizationId: string): Promise<SecretRow[]>;
  /** False when there is no such secret. */
  updateValue(
    organizationId: string,
    name: string,
    sealedValue: string,
    updatedAt: string,
  ): Promise<boolean>;
  /** False when there is no such secret. */
  remove(organizationId: string, name: string): Promise<boolean>;
}
