import type { SQL } from "bun";
import { type Clock, isoAt } from "../shared/clock.ts";
import { type BreakerState, closedBreaker } from "./delivery.breaker.model.ts";
import type { SharedBreakers } from "./delivery.breaker.store.ts";

export interface PostgresBreakersOptions {
  sql: SQL;
  clock: Clock;
  /**
   * How long a read state is trusted without asking the database; default 1 s. Another node's
   * change reaches this node's admissions within it: a breaker that just opened elsewhere lets
   * at most this long of attempts through here, each of which only adds to its record.
   */
  cacheMs?: number;
}

/**
 * Breakers in `delivery_breakers` (the table SQLite servers use too), one row per destination:
 * reads through a short cache, changes as `SELECT … FOR UPDATE` then an upsert in the attempt's
 * transaction, so concurrent changes from several nodes apply one after the other.
 */
export function createPostgresBreakers(options: PostgresBreakersOptions): SharedBreakers {
  const { sql, clock } = options;
  const cacheMs = options.cacheMs ?? 1000;
  const cached = new Map<string, { state: BreakerState; at: number }>();
  const parse = (row: { state: string } | undefined) =>
    row ? (JSON.parse(row.state) as BreakerState) : closedBreaker();

  return {
    async read(key) {
      const now = clock.now();
      const known = cached.get(key);
      if (known && now - known.at < cacheMs) return known.state;
      const [row] = await sql<{ state: string }[]>`
        SELECT state FROM delivery_breakers WHERE destination_key = ${key}`;
      const state = parse(row);
      cached.set(key, { state, at: now });
      return state;
    },
    async update(tx, key, change, now) {
      // A missing row cannot be locked: the insert takes its place (a concurrent first insert
      // waits on ours, then finds the row and updates it in turn).
      await tx`INSERT INTO delivery_breakers (destination_key, phase, state, updated_at)
        VALUES (${key}, 'closed', ${JSON.stringify(closedBreaker())}, ${isoAt(now)})
        ON CONFLICT (destination_key) DO NOTHING`;
      const [row] = await tx<{ state: string }[]>`
        SELECT state FROM delivery_breakers WHERE destination_key = ${key} FOR UPDATE`;
      const state = change(parse(row));
      await tx`UPDATE delivery_breakers
        SET phase = ${state.phase}, state = ${JSON.stringify(state)}, updated_at = ${isoAt(now)}
        WHERE destination_key = ${key}`;
      cached.set(key, { state, at: clock.now() });
      return state;
    },
    async forget(key) {
      await sql`DELETE FROM delivery_breakers WHERE destination_key = ${key}`;
      cached.delete(key);
    },
  };
}
