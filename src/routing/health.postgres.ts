import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type { HealthDay } from "./health.model.ts";
import type { HealthStore } from "./health.store.ts";

const day = (row: { date: string; attempted: unknown; delivered: unknown }): HealthDay => ({
  date: row.date,
  attempted: Number(row.attempted),
  delivered: Number(row.delivered),
});

/** Daily delivery counts on PostgreSQL: the statements of health.repo.ts, same results. */
export function createHealthPostgresStore(pg: PostgresDb): HealthStore {
  const { sql } = pg;
  return {
    async record(tx, o) {
      await (tx ?? sql)`
        INSERT INTO delivery_health_days (destination_id, day, organization_id, bridge_id,
          attempted, delivered, last_failure_at)
        VALUES (${o.destinationId}, ${o.day}, ${o.organizationId}, ${o.bridgeId},
          ${o.ended ? 1 : 0}, ${o.ended && o.delivered ? 1 : 0}, ${o.failedAt})
        ON CONFLICT (destination_id, day) DO UPDATE SET
          attempted = delivery_health_days.attempted + excluded.attempted,
          delivered = delivery_health_days.delivered + excluded.delivered,
          last_failure_at = greatest(delivery_health_days.last_failure_at, excluded.last_failure_at)`;
    },
    async destinationDays(destinationId, from) {
      const rows = await sql`
        SELECT day AS date, attempted, delivered FROM delivery_health_days
         WHERE destination_id = ${destinationId} AND day >= ${from} ORDER BY day`;
      return rows.map(day);
    },
    async bridgeDays(bridgeId, from) {
      const rows = await sql`
        SELECT day AS date, sum(attempted) AS attempted, sum(delivered) AS delivered
          FROM delivery_health_days WHERE bridge_id = ${bridgeId} AND day >= ${from}
         GROUP BY day ORDER BY day`;
      return rows.map(day);
    },
    async lastFailures(bridgeId, from) {
      const rows = await sql<{ destination_id: string; at: string | null }[]>`
        SELECT destination_id, max(last_failure_at) AS at FROM delivery_health_days
         WHERE bridge_id = ${bridgeId} AND day >= ${from} GROUP BY destination_id`;
      return new Map(rows.map((r) => [r.destination_id, r.at === null ? null : Number(r.at)]));
    },
    async sweep(before) {
      return (await sql`DELETE FROM delivery_health_days WHERE day < ${before}`).count;
    },
  };
}
