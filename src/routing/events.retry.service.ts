import type { RetriedDelivery } from "../delivery/delivery.ports.ts";
import { conflict, type FieldErrors, validationFailed } from "../shared/errors.ts";
import type { EventCursor, EventQuery } from "./events.repo.ts";
import { parseEventQuery } from "./events.service.ts";
import type { EventsStore } from "./events.store.ts";

/** Events handled per transaction: short enough that ingests and captures commit in between. */
export const BULK_RETRY_BATCH = 500;

/** What `POST /events/retry` narrows to: the list's filters and one destination. */
export interface BulkRetryQuery extends EventQuery {
  destinationId?: string;
}

export interface BulkRetryDeps {
  events: Pick<EventsStore, "retryBatch">;
  /**
   * In one transaction of the store: a manual retry of these events' deliveries (to one
   * destination when given) with `reopen` of each event for its requeued ones; what it did.
   */
  retryInTx(
    eventIds: readonly string[],
    destinationId: string | undefined,
    reopen: (done: readonly RetriedDelivery[]) => Map<string, number>,
  ): Promise<RetriedDelivery[]>;
  wake(): void;
  /** Lets the event loop run (ingests, captures, deliveries) between two batches. */
  yieldTurn(): Promise<void>;
  batchSize?: number;
}

const FIELDS = ["status", "source_id", "bridge_id", "destination_id", "since", "until"] as const;

/**
 * Reads the body of `POST /events/retry`. Stricter than the list's query: a misspelt or
 * mistyped filter would otherwise widen a write to every failed delivery, so it is a 422.
 * Ids are only compared: an unknown one matches nothing.
 */
export function parseBulkRetry(body: unknown): BulkRetryQuery {
  if (body === undefined || body === null || body === "") return {};
  if (typeof body !== "object" || Array.isArray(body)) {
    throw validationFailed({ body: ["must be a JSON object"] });
  }
  const errors: FieldErrors = {};
  for (const [name, value] of Object.entries(body)) {
    if (!(FIELDS as readonly string[]).includes(name)) {
      errors[name] = [`is not a filter of a retry (${FIELDS.join(", ")})`];
    } else if (value !== undefined && value !== null && typeof value !== "string") {
      errors[name] = ["must be a string"];
    }
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  // The list's own reading of the shared filters: the same values mean the same events.
  const filters = body as Record<string, unknown>;
  const destinationId = filters.destination_id;
  return {
    ...parseEventQuery(filters),
    ...(typeof destinationId === "string" && destinationId !== "" ? { destinationId } : {}),
  };
}

/**
 * Bulk retry (decisions.md §15): every failed delivery of the organization's matching events is
 * requeued and every waiting one pulled forward, batch by batch. One runs per organization at
 * a time: a second call while one runs is a 409 `retry_in_progress` (it would find nothing the
 * first has not taken, or race it for the same rows), never a second requeue.
 */
export function createBulkRetry(deps: BulkRetryDeps) {
  const running = new Set<string>();
  const batchSize = deps.batchSize ?? BULK_RETRY_BATCH;

  /** One batch in one transaction: how many deliveries it made due now. */
  const retryBatch = async (events: readonly EventCursor[], destinationId: string | undefined) => {
    const ids = events.map((e) => e.id);
    const done = await deps.retryInTx(ids, destinationId, reopenedBy);
    return done.filter((d) => d.action !== "unchanged").length;
  };

  return {
    /** Retries what matches; resolves with how many deliveries were made due now. */
    async run(organizationId: string, query: BulkRetryQuery): Promise<number> {
      if (running.has(organizationId)) throw conflict("retry_in_progress");
      running.add(organizationId);
      try {
        let requeued = 0;
        let cursor: EventCursor | null = null;
        for (;;) {
          const batch = await deps.events.retryBatch(organizationId, query, cursor, batchSize);
          if (batch.length === 0) break;
          const made = await retryBatch(batch, query.destinationId);
          if (made > 0) deps.wake();
          requeued += made;
          cursor = batch[batch.length - 1] ?? null;
          if (batch.length < batchSize) break;
          await deps.yieldTurn();
        }
        return requeued;
      } finally {
        running.delete(organizationId);
      }
    },
  };
}

export type BulkRetry = ReturnType<typeof createBulkRetry>;

/** How many deliveries of each event a retry requeued: what each event is reopened by. */
export function reopenedBy(done: readonly RetriedDelivery[]): Map<string, number> {
  const reopened = new Map<string, number>();
  for (const d of done) {
    if (d.action === "requeued") reopened.set(d.subjectId, (reopened.get(d.subjectId) ?? 0) + 1);
  }
  return reopened;
}
