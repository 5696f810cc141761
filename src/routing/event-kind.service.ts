import type { PostgresTx } from "../db/db.postgres-handle.ts";
import type { TxHandle } from "../db/db.tx.ts";
import { channelProvider } from "../delivery/channels/channels.registry.ts";
import type {
  DeliveryAttempt,
  DeliveryKindHandlers,
  DeliveryRecord,
  DeliveryResponse,
} from "../delivery/delivery.ports.ts";
import { concealer } from "../shared/conceal.ts";
import { eventDeliveryRequest } from "./delivery-request.model.ts";
import type { createDestinationCache } from "./destinations.cache.ts";
import {
  destinationConcealments,
  environmentConcealments,
  exactChatPayload,
  scriptRequestOf,
  transformedEvent,
  withSecrets,
} from "./event-prepare.model.ts";
import type { StoredEvent } from "./events.repo.ts";
import type { IngestDeps } from "./ingest.service.ts";

/** What the event kind reads and writes, on whichever store the ingest path runs. */
export interface EventKindReads {
  findEvent(id: string): StoredEvent | null | Promise<StoredEvent | null>;
  destinations: ReturnType<typeof createDestinationCache>;
  /** The source's name from the cached route plan: no query per delivery. */
  sourceName(sourceId: string): Promise<string | undefined>;
  deliveryEnded(eventId: string, status: "delivered" | "failed"): void;
  deliveryEndedPostgres(
    tx: PostgresTx,
    eventId: string,
    status: "delivered" | "failed",
  ): Promise<void>;
}

type EventKindDeps = Pick<
  IngestDeps,
  | "resolveSecrets"
  | "resolveSecretsNow"
  | "secretEnvironment"
  | "runTransformation"
  | "telegramApiBase"
>;

/**
 * The `event` delivery kind: prepares an event's request for its destination at send time
 * (secrets, transformation, signing, chat payloads) and moves the event when its deliveries end.
 */
export function createEventKindHandlers(
  deps: EventKindDeps,
  reads: EventKindReads,
): DeliveryKindHandlers {
  return {
    async prepare(delivery: DeliveryRecord) {
      const event = await reads.findEvent(delivery.subjectId);
      const found = await reads.destinations.fetch(delivery.destinationKey);
      if (!event || !found) {
        return {
          fail: {
            errorType: "network_error",
            errorCode: "destination_deleted",
            message: "the event or its destination no longer exists",
            retryable: false,
          },
        };
      }
      const lookup =
        deps.resolveSecretsNow?.(event.organizationId) ??
        (await deps.resolveSecrets?.(event.organizationId)) ??
        (() => undefined);
      const resolved = withSecrets(found.destination, lookup);
      if ("fail" in resolved) return resolved;
      const { destination } = resolved;
      let concealed = destinationConcealments(found.destination, destination, lookup);
      const secrets = found.signingSecrets;
      let sendable = event;
      if (destination.transformationId && deps.runTransformation) {
        const outcome = await deps.runTransformation(
          event.organizationId,
          destination.transformationId,
          scriptRequestOf(event),
        );
        if ("filtered" in outcome) return { skip: "filtered" };
        // The script saw every secret (`context.env`) and may have copied one anywhere.
        const environment = (await deps.secretEnvironment?.(event.organizationId)) ?? {};
        concealed = [...concealed, ...environmentConcealments(environment)];
        if ("error" in outcome) {
          const { code, message } = outcome.error;
          return {
            fail: {
              errorType: "transformation_error",
              errorCode: code,
              message: concealer(concealed)(message),
              retryable: false,
            },
          };
        }
        const exact = exactChatPayload(destination, outcome.request.body, deps.telegramApiBase);
        if (exact) return { send: { ...exact, concealed } };
        sendable = transformedEvent(event, outcome.request);
      }
      const prepared = eventDeliveryRequest(sendable, destination, secrets, {
        // The cached route plan holds the source: no query per delivery for its name.
        sourceName: await reads.sourceName(event.sourceId),
        telegramApiBase: deps.telegramApiBase,
      });
      if (!("send" in prepared)) return prepared;
      // Untransformed, the body sent is the event's own: its attempts need not keep a copy.
      const bodyIsSubject = sendable === event && prepared.send.body === event.body;
      return { send: { ...prepared.send, concealed, bodyIsSubject } };
    },
    retryAfterMs(delivery: DeliveryRecord, response: DeliveryResponse) {
      const found = reads.destinations.get(delivery.destinationKey);
      if (!found || found.destination.type === "http") return null;
      const provider = channelProvider(found.destination.type, {
        telegramApiBase: deps.telegramApiBase,
      });
      return provider?.retryAfterMs?.(response) ?? null;
    },
    // Only an ended delivery moves its event (decisions.md §8): a failed one fails it
    // at once; the last open one ending delivered delivers it. The event's open count
    // says which is the last, so no sibling is read; a retry leaves the event as it is.
    onAttempt(_tx: TxHandle, delivery: DeliveryRecord, _attempt: DeliveryAttempt) {
      if (delivery.status === "failed" || delivery.status === "delivered")
        reads.deliveryEnded(delivery.subjectId, delivery.status);
    },
    // A transformation dropped it: nothing to send, and one fewer delivery to wait for.
    onSkipped(_tx: TxHandle, delivery: DeliveryRecord) {
      reads.deliveryEnded(delivery.subjectId, "delivered");
    },
    async onAttemptPostgres(tx, delivery) {
      if (delivery.status === "failed" || delivery.status === "delivered")
        await reads.deliveryEndedPostgres(tx, delivery.subjectId, delivery.status);
    },
    async onSkippedPostgres(tx, delivery) {
      await reads.deliveryEndedPostgres(tx, delivery.subjectId, "delivered");
    },
  };
}
