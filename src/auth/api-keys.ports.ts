import type { PostgresTx } from "../db/db.postgres-handle.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { Role } from "./auth.model.ts";

/** A key as other rooms see it: never the key, never its hash. */
export interface ApiKeySummary {
  id: string;
  organizationId: string;
  name: string;
  role: Role;
  expiresAt: string | null;
}

/**
 * Something that happened to a key: made, revoked, or used from an address its allowlist
 * refuses (`ip` as the server computed it). Alert rules hear these.
 */
export interface ApiKeyEvent {
  kind: "created" | "revoked" | "denied_ip";
  key: ApiKeySummary;
  at: string;
  ip: string | null;
}

/** What the auth room lends about keys to rooms built after it (the alerts room). */
export interface ApiKeyPorts {
  /**
   * Hears key events inside the transaction that wrote their cause (a denial has no write of
   * its own: it gets a transaction of its own), so a listener's rows commit with it.
   */
  onApiKeyEvent(listener: (tx: TxHandle, event: ApiKeyEvent) => void): void;
  /**
   * `onApiKeyEvent` on PostgreSQL: in the `sql.begin` transaction that wrote the cause (a room
   * running on either store registers both; only the one of the store Weir runs on is told).
   */
  onApiKeyEventPostgres(listener: (tx: PostgresTx, event: ApiKeyEvent) => Promise<void>): void;
  /** Active keys of every organization expiring after `from` and at most `until` (ISO). */
  keysExpiringBetween(from: string, until: string, limit: number): Promise<ApiKeySummary[]>;
}
