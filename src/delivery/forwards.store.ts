import type { DeliveryAttempt } from "./delivery.ports.ts";
import type { DeliveryRow } from "./delivery.repo.ts";
import type { ForwardRecord } from "./forwards.model.ts";

/** Forward records and replays (forwards.repo.ts on SQLite, forwards.postgres.ts beside it). */
export interface ForwardsStore {
  /**
   * Stores a replay as an ended delivery with its one attempt; false when its request is gone
   * (deleted, or hidden by a delete or an empty, meanwhile), which is not an error.
   */
  insertReplay(row: DeliveryRow, attempt: DeliveryAttempt): Promise<boolean>;
  /** One page of a request's tries, newest first (a breaker's wait is not a try). */
  listPage(requestId: string, offset: number, limit: number): Promise<ForwardRecord[]>;
  count(requestId: string): Promise<number>;
}
