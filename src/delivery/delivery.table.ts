import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The outbox: one row per thing to deliver (a forward of a capture, an event to a destination,
 * an alert), written in the transaction of its cause and claimed by the due-queue with a lease.
 * Times the queue compares (`next_attempt_at`, `locked_until`) are epoch milliseconds; a NULL
 * `next_attempt_at` means the delivery has ended (delivered or failed).
 */
export const deliveries = sqliteTable(
  "deliveries",
  {
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    organizationId: text("organization_id"),
    subjectId: text("subject_id").notNull(),
    destinationKey: text("destination_key").notNull(),
    /** Standard Webhooks `webhook-id`: the same on every retry of this delivery. */
    webhookId: text("webhook_id").notNull(),
    status: text("status").notNull(),
    attempts: integer("attempts").notNull().default(0),
    maxRetries: integer("max_retries").notNull(),
    /** Attempts made before the last requeue: the retry budget counts from there. */
    attemptsBeforeRequeue: integer("attempts_before_requeue").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at"),
    lockedUntil: integer("locked_until"),
    lastStatusCode: integer("last_status_code"),
    lastErrorType: text("last_error_type"),
    lastErrorCode: text("last_error_code"),
    lastErrorMessage: text("last_error_message"),
    lastLatencyMs: integer("last_latency_ms"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    // The claim walks (due, id) in order and skips leased rows and keys at their limit: with
    // the lease and the key in the index it never sorts and never reads a row it skips.
    index("deliveries_due_idx").on(
      t.nextAttemptAt,
      t.id,
      t.lockedUntil,
      t.destinationKey,
      t.organizationId,
    ),
    // A freed slot is refilled from its own destination: this reads only that key's due rows.
    index("deliveries_key_due_idx").on(t.destinationKey, t.nextAttemptAt, t.id, t.lockedUntil),
    // An organization owed its part while every slot is taken claims from its own rows alone.
    index("deliveries_org_due_idx").on(
      t.organizationId,
      t.nextAttemptAt,
      t.id,
      t.lockedUntil,
      t.destinationKey,
    ),
    // A subject's deliveries in their order (every attempt's owner reads its siblings): no sort.
    index("deliveries_subject_idx").on(t.kind, t.subjectId, t.createdAt, t.id),
    index("deliveries_created_idx").on(t.createdAt),
    // Rows under a lease (live, or run out and not yet claimed again): a handful, whatever the
    // backlog, so /metrics counts the leased due rows without reading the queue.
    index("deliveries_leased_idx")
      .on(t.lockedUntil, t.nextAttemptAt)
      .where(sql`locked_until IS NOT NULL`),
  ],
);

/** Every attempt of a delivery, as sent and as answered (the first 64 KiB of the body). */
export const deliveryAttempts = sqliteTable(
  "delivery_attempts",
  {
    id: text("id").primaryKey(),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => deliveries.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    url: text("url").notNull(),
    method: text("method").notNull(),
    statusCode: integer("status_code"),
    /** JSON array of [name, value] pairs as received. */
    responseHeaders: text("response_headers").notNull(),
    responseBody: text("response_body").notNull(),
    latencyMs: integer("latency_ms").notNull(),
    errorType: text("error_type"),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    /**
     * JSON `{headers, body, body_encoding, body_truncated, body_size}`: the request as sent, its
     * secrets concealed and its body cut at 64 KiB; NULL when nothing was sent.
     */
    sentRequest: text("sent_request"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("delivery_attempts_delivery_idx").on(t.deliveryId, t.createdAt)],
);

/** One circuit breaker per destination key, as the breaker model's plain data (JSON). */
export const deliveryBreakers = sqliteTable("delivery_breakers", {
  destinationKey: text("destination_key").primaryKey(),
  phase: text("phase").notNull(),
  state: text("state").notNull(),
  updatedAt: text("updated_at").notNull(),
});

/** Circuit breakers by phase, kept by triggers on `delivery_breakers` (one per destination). */
export const deliveryBreakerPhases = sqliteTable("delivery_breaker_phases", {
  phase: text("phase").primaryKey(),
  n: integer("n").notNull(),
});
