import type { PostgresTx } from "../db/db.postgres-handle.ts";
import type { EventCursor, EventQuery, EventStatus, StoredEvent } from "./events.repo.ts";

/**
 * Events as their reads, retries and retention use them (events.repo.ts on SQLite, adapted by
 * events.sqlite.ts; events.postgres.ts beside it). The methods taking `tx` write inside the
 * caller's PostgreSQL transaction; the SQLite adapter runs them in the open SQLite transaction
 * (it ignores `tx`), as the repo always did.
 */
export interface EventsStore {
  /** Stores the event, its state (`openDeliveries` written with it) and its bridges, in order. */
  insert(
    tx: PostgresTx | null,
    event: StoredEvent,
    bridgeIds: readonly string[],
    openDeliveries: number,
  ): Promise<void>;
  find(organizationId: string, id: string): Promise<StoredEvent | null>;
  findById(id: string): Promise<StoredEvent | null>;
  /** Why the event failed before any delivery, or null. */
  statusReason(id: string): Promise<string | null>;
  /**
   * The bridges of each event, in the order they were related, which is their route plan's
   * (created, then id): the order PostgreSQL, which has no rowid, reads them back in.
   */
  bridgesOf(eventIds: readonly string[]): Promise<Map<string, string[]>>;
  /** One page, newest first (bodies cut to their preview), and the narrowed list's total. */
  page(
    organizationId: string,
    query: EventQuery,
    limit: number,
    offset: number,
  ): Promise<{ events: StoredEvent[]; total: number }>;
  /** A bulk retry's next batch after `cursor`, oldest first: failed or pending events. */
  retryBatch(
    organizationId: string,
    query: EventQuery,
    cursor: EventCursor | null,
    limit: number,
  ): Promise<EventCursor[]>;
  storedBytes(organizationId: string): Promise<number>;
  tenantsWithEvents(): Promise<{ id: string; plan: string }[]>;
  /** Deletes up to `limit` events created before `beforeIso`; their ids. */
  deleteBefore(
    tx: PostgresTx | null,
    organizationId: string,
    beforeIso: string,
    limit: number,
  ): Promise<string[]>;
  setStatus(tx: PostgresTx | null, id: string, status: EventStatus): Promise<void>;
  /** `count` deliveries are due again: the event is pending until they end. */
  reopen(tx: PostgresTx | null, id: string, count: number): Promise<void>;
  /** `reopen` of many events at once (a bulk retry's batch): one statement on PostgreSQL. */
  reopenMany(tx: PostgresTx | null, counts: ReadonlyMap<string, number>): Promise<void>;
  replaceBridges(
    tx: PostgresTx | null,
    eventId: string,
    bridgeIds: readonly string[],
  ): Promise<void>;
  /** One of the event's deliveries ended (decisions.md §8). */
  deliveryEnded(tx: PostgresTx | null, id: string, outcome: "delivered" | "failed"): Promise<void>;
}
