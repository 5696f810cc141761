import { Elysia } from "elysia";
import type { AuthPorts } from "../auth/auth.room.ts";
import type { PostgresDb, PostgresSql } from "../db/db.postgres-handle.ts";
import type {
  AttemptObserverPostgres,
  DeliveryAttempt,
  DeliveryRecord,
} from "../delivery/delivery.ports.ts";
import { createIssuesRoom } from "../issues/issues.room.ts";
import type { DestinationDescription } from "../routing/routing.room.ts";
import { createSystemClock, type TimerClock } from "../shared/clock.ts";
import { loadConfig } from "../shared/config.ts";
import { createIds } from "../shared/ids.ts";
import { createLogger, type Logger } from "../shared/logger.ts";

/**
 * The issues room on PostgreSQL heard as the delivery room tells it: each attempt recorded in a
 * `sql.begin` transaction that also runs the observers, each in a savepoint of its own. Used by
 * the room-level observer tests and the kill -9 child while deliveries are still SQLite-only.
 */

const CREATED = "2026-01-01T00:00:00.000Z";

/** An organization with a bridge and one destination of it; returns its description. */
export async function seedRoute(
  sql: PostgresSql,
  organizationId: string,
  destinationId: string,
): Promise<DestinationDescription> {
  const sourceId = `source-${destinationId}`;
  const bridgeId = `bridge-${destinationId}`;
  await sql`INSERT INTO organizations (id, name, plan, created_at, updated_at)
    VALUES (${organizationId}, ${organizationId}, 'free', ${CREATED}, ${CREATED})
    ON CONFLICT (id) DO NOTHING`;
  await sql`INSERT INTO sources (id, organization_id, name, type, slug, created_at, updated_at)
    VALUES (${sourceId}, ${organizationId}, ${sourceId}, 'webhook', ${sourceId}, ${CREATED}, ${CREATED})`;
  await sql`INSERT INTO bridges (id, organization_id, source_id, name, status, created_at, updated_at)
    VALUES (${bridgeId}, ${organizationId}, ${sourceId}, 'Orders', 'active', ${CREATED}, ${CREATED})`;
  await sql`INSERT INTO destinations (id, bridge_id, organization_id, name, type, priority, url,
      max_retries, filters, created_at, updated_at)
    VALUES (${destinationId}, ${bridgeId}, ${organizationId}, 'Billing', 'http', 'high',
      'https://example.com', 0, '[]', ${CREATED}, ${CREATED})`;
  return {
    organizationId,
    bridgeId,
    destinationId,
    bridgeName: "Orders",
    sourceName: sourceId,
    destinationName: "Billing",
    destinationType: "http",
    destinationPriority: "high",
  };
}

/** An event delivery to the destination, as the delivery room keeps it. */
export async function seedDelivery(
  sql: PostgresSql,
  id: string,
  route: DestinationDescription,
  kind: DeliveryRecord["kind"] = "event",
): Promise<DeliveryRecord> {
  const delivery: DeliveryRecord = {
    id,
    kind,
    organizationId: route.organizationId,
    subjectId: `event-${id}`,
    destinationKey: route.destinationId,
    webhookId: `msg_${id}`,
    status: "retrying",
    attempts: 0,
    maxRetries: 1000,
    nextAttemptAt: null,
    lastStatusCode: null,
    lastErrorType: null,
    lastErrorCode: null,
    lastErrorMessage: null,
    lastLatencyMs: null,
    createdAt: CREATED,
    updatedAt: CREATED,
  };
  await sql`INSERT INTO deliveries (id, kind, organization_id, subject_id, destination_key,
      webhook_id, status, max_retries, created_at, updated_at)
    VALUES (${id}, ${kind}, ${delivery.organizationId}, ${delivery.subjectId},
      ${delivery.destinationKey}, ${delivery.webhookId}, 'retrying', 1000, ${CREATED}, ${CREATED})`;
  return delivery;
}

/** One issues room ("node") on the database, with what the delivery room would lend it. */
export function issuesNode(
  pg: PostgresDb,
  routes: readonly DestinationDescription[],
  options: { clock?: TimerClock; logger?: Logger; dataDir: string },
) {
  const observers: AttemptObserverPostgres[] = [];
  const room = createIssuesRoom(
    {
      postgres: pg,
      clock: options.clock ?? createSystemClock(),
      ids: createIds(),
      logger: options.logger ?? createLogger({ level: "error", write: () => {} }),
      config: loadConfig({ env: {}, flags: { data_dir: options.dataDir } }).config,
    },
    {
      guard: (() => new Elysia()) as unknown as AuthPorts["guard"],
      observeAttempts: () => {},
      observeAttemptsPostgres: (observer) => void observers.push(observer),
      describeDestination: (id) => routes.find((r) => r.destinationId === id) ?? null,
    },
  );
  let attempts = 0;
  return {
    room,
    /**
     * Records one attempt of the delivery in its own transaction, as the delivery room does:
     * the attempt's row, then each observer in a savepoint. `abort` rolls it all back.
     */
    async attempt(
      delivery: DeliveryRecord,
      outcome: { status: number; at: string; abort?: boolean },
    ): Promise<DeliveryAttempt> {
      attempts += 1;
      const failed = outcome.status >= 300;
      const attempt: DeliveryAttempt = {
        id: `${delivery.id}-${process.pid}-${attempts}`,
        deliveryId: delivery.id,
        attempt: attempts,
        url: "https://example.com",
        method: "POST",
        statusCode: outcome.status,
        responseHeaders: [],
        responseBody: failed ? "down" : "ok",
        latencyMs: 1,
        errorType: failed ? "http_error" : null,
        errorCode: failed ? String(outcome.status) : null,
        errorMessage: failed ? `HTTP ${outcome.status}` : null,
        createdAt: outcome.at,
      };
      await pg.sql.begin(async (tx) => {
        await tx`INSERT INTO delivery_attempts (id, delivery_id, attempt, url, method, status_code,
            response_headers, response_body, latency_ms, error_type, error_code, error_message,
            created_at)
          VALUES (${attempt.id}, ${delivery.id}, ${attempt.attempt}, ${attempt.url}, 'POST',
            ${attempt.statusCode}, '[]', ${attempt.responseBody}, 1, ${attempt.errorType},
            ${attempt.errorCode}, ${attempt.errorMessage}, ${attempt.createdAt})`;
        for (const observer of observers) {
          await tx.savepoint((inner) => observer(inner, delivery, attempt));
        }
        if (outcome.abort) throw new Error("recording the attempt failed");
      });
      return attempt;
    },
  };
}
