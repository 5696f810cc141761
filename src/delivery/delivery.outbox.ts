import type { TxHandle } from "../db/db.tx.ts";
import type {
  AttemptObserver,
  DeliveryKind,
  DeliveryKindHandlers,
  DeliveryPorts,
  NewDelivery,
} from "./delivery.ports.ts";
import { type DeliveryRepo, type DeliveryRow, toDeliveryRecord } from "./delivery.repo.ts";
import type { RetryNowRepo } from "./delivery.retry-now.repo.ts";
import type { OutboxDeps } from "./delivery.worker.ts";

/** Length of the random part of a Standard Webhooks message id (`msg_…`). */
export const WEBHOOK_ID_CHARS = 27;

/**
 * The writing and reading half of the outbox (DeliveryPorts): rows are written through the
 * caller's transaction handle, so they commit with their cause or not at all; `wake` asks the
 * worker to claim at the end of the turn.
 */
export function createOutboxPorts(
  deps: Pick<OutboxDeps, "clock" | "ids">,
  repo: DeliveryRepo,
  retries: RetryNowRepo,
  kinds: Map<DeliveryKind, DeliveryKindHandlers>,
  wake: (organizations: Iterable<string | null>) => void,
  observers: AttemptObserver[],
  ingestCommitted: (size: number) => void,
): DeliveryPorts {
  // The organizations of rows written since the last wake: the queue owes each its part at once.
  const enqueuedFor = new Set<string | null>();
  return {
    observeAttempts(observer) {
      observers.push(observer);
    },
    registerKind(kind, handlers) {
      if (kinds.has(kind)) throw new Error(`delivery kind ${kind} is registered already`);
      kinds.set(kind, handlers);
    },
    enqueue(_tx: TxHandle, items: readonly NewDelivery[]) {
      const now = deps.clock.now();
      const createdAt = new Date(now).toISOString();
      return items.map((item) => {
        const row = newDeliveryRow(
          item,
          deps.ids.uuid(),
          `msg_${deps.ids.base62(WEBHOOK_ID_CHARS)}`,
          now,
          createdAt,
        );
        repo.insert(row);
        enqueuedFor.add(row.organization_id);
        return toDeliveryRecord(row, now);
      });
    },
    wake() {
      const organizations = [...enqueuedFor];
      enqueuedFor.clear();
      wake(organizations);
    },
    ingestCommitted,
    listBySubject: async (kind, subjectIds) => {
      const now = deps.clock.now();
      return repo.listBySubject(kind, subjectIds).map((row) => toDeliveryRecord(row, now));
    },
    listAttempts: async (deliveryId, limit) => repo.listAttempts(deliveryId, limit),
    breakerOpen: (key) => repo.breaker(key).phase !== "closed",
    requeue: (_tx, kind, subjectId, options) =>
      repo.requeue(kind, subjectId, options?.includeEnded ?? false, deps.clock.now()),
    forgetSubjects: (_tx, kind, subjectIds) => repo.forgetSubjects(kind, subjectIds),
    retryNow(_tx, kind, subjectIds, options) {
      const now = deps.clock.now();
      const done = retries.retryNow(kind, subjectIds, options?.destinationKey ?? null, now);
      const touched = new Set(
        done.filter((d) => d.action !== "unchanged").map((d) => d.destinationKey),
      );
      for (const key of touched) probeNow(repo, key, now);
      return done;
    },
    attemptsOfSubject: async (kind, subjectId, page) =>
      retries.attemptsOfSubject(kind, subjectId, page),
  };
}

/**
 * An open breaker lets its one probe go now instead of at the end of its wait: a retry asked for
 * now should not sit behind it. A probe that fails opens it again, so a target still down costs
 * one attempt, not a flood.
 */
function probeNow(repo: DeliveryRepo, key: string, now: number): void {
  const state = repo.breaker(key);
  if (state.phase === "open" && (state.openUntil ?? now) > now) {
    repo.saveBreaker(key, { ...state, openUntil: now }, now);
  }
}

/** A new outbox row for `item`, due at its `dueAt` or now. */
export function newDeliveryRow(
  item: NewDelivery,
  id: string,
  webhookId: string,
  now: number,
  createdAt: string,
): DeliveryRow {
  return {
    id,
    kind: item.kind,
    organization_id: item.organizationId,
    subject_id: item.subjectId,
    destination_key: item.destinationKey,
    webhook_id: webhookId,
    status: "pending",
    attempts: 0,
    max_retries: item.maxRetries,
    attempts_before_requeue: 0,
    next_attempt_at: item.dueAt ?? now,
    locked_until: null,
    last_status_code: null,
    last_error_type: null,
    last_error_code: null,
    last_error_message: null,
    last_latency_ms: null,
    created_at: createdAt,
    updated_at: createdAt,
  };
}
