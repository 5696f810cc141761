import type { SQL } from "bun";
import type { BreakerState } from "./delivery.breaker.model.ts";

/**
 * Circuit breakers shared by the nodes of one PostgreSQL database (delivery.breaker.postgres.ts).
 * On SQLite a breaker is a `delivery_breakers` row that the one server also keeps in memory
 * (delivery.repo.ts: read only on a miss), which is right because nobody else writes it. With
 * several nodes the row stays the truth and each node's copy is only a short cache: an attempt's
 * admission may read a state up to `cacheMs` old, and every change is written under the row's
 * lock in the attempt's transaction, so two nodes never both let the one half-open probe out.
 */
export interface SharedBreakers {
  /** The destination's breaker as of at most `cacheMs` ago (closed when it has no row). */
  read(key: string): Promise<BreakerState>;
  /**
   * In the attempt's transaction `tx`: locks the destination's row, applies `change` to its
   * current state (never the cached one) and writes the result; returns it. The new state is
   * this node's cached copy at once (should `tx` roll back, the copy is right again after
   * `cacheMs`: the row, not the copy, decides every change).
   */
  update(
    tx: SQL,
    key: string,
    change: (state: BreakerState) => BreakerState,
    now: number,
  ): Promise<BreakerState>;
  /** Forgets a destination's breaker (its row and every cached copy on this node). */
  forget(key: string): Promise<void>;
}
