import type { PostgresTx } from "../db/db.postgres-handle.ts";
import type {
  DeliveryAttempt,
  DeliveryKind,
  RetriedDelivery,
  SubjectAttempt,
} from "./delivery.ports.ts";
import type { DeliveryOutcome, DeliveryRow } from "./delivery.repo.ts";

/**
 * The outbox's storage as the delivery ports and the PostgreSQL worker use it. SQLite keeps its
 * synchronous repos (delivery.repo.ts, delivery.retry-now.repo.ts) for the worker and the
 * writes made in other rooms' transactions; `createDeliverySqliteStore` adapts them to this
 * shape, and one contract suite holds both implementations to the same results. The methods
 * taking `tx` run inside the caller's PostgreSQL transaction on PostgreSQL and inside the open
 * SQLite transaction on SQLite (the adapter ignores `tx`).
 */
export interface DeliveryStore {
  insert(tx: PostgresTx | null, rows: readonly DeliveryRow[]): Promise<void>;
  find(id: string): Promise<DeliveryRow | null>;
  /** A subject's deliveries of a kind, oldest first. */
  listBySubject(kind: DeliveryKind, subjectIds: readonly string[]): Promise<DeliveryRow[]>;
  /** A delivery's attempts, newest first. */
  listAttempts(deliveryId: string, limit: number): Promise<DeliveryAttempt[]>;
  attemptsOfSubject(
    kind: DeliveryKind,
    subjectId: string,
    page: { limit: number; offset: number },
  ): Promise<{ attempts: SubjectAttempt[]; total: number }>;
  /** Failed (with `includeEnded`, every ended) deliveries of a subject due at `now`; how many. */
  requeue(
    tx: PostgresTx | null,
    kind: DeliveryKind,
    subjectId: string,
    includeEnded: boolean,
    now: number,
  ): Promise<number>;
  /** A manual retry: failed rows requeued, waiting ones pulled forward to `now`. */
  retryNow(
    tx: PostgresTx | null,
    kind: DeliveryKind,
    subjectIds: readonly string[],
    destinationKey: string | null,
    now: number,
  ): Promise<RetriedDelivery[]>;
  /** Removes the deliveries of some subjects (their attempts by cascade); how many. */
  forgetSubjects(
    tx: PostgresTx | null,
    kind: DeliveryKind,
    subjectIds: readonly string[],
  ): Promise<number>;
  /** Writes an attempt's outcome and lets go of the lease; false when the lease was lost. */
  finish(tx: PostgresTx | null, outcome: DeliveryOutcome): Promise<boolean>;
  insertAttempt(tx: PostgresTx | null, attempt: DeliveryAttempt): Promise<void>;
}
