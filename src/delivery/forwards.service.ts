import type { CapturedRequest } from "../capture/capture.model.ts";
import { type PageRequest, pageInfo } from "../db/db.pagination.ts";
import { endpointErrors } from "../endpoints/endpoints.errors.ts";
import type { Endpoint } from "../endpoints/endpoints.model.ts";
import { isHttpUrl } from "../endpoints/endpoints.validate.ts";
import type { OutboundSender } from "../http/outbound/outbound.model.ts";
import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import { validationFailed } from "../shared/errors.ts";
import type { Ids } from "../shared/ids.ts";
import type { Logger } from "../shared/logger.ts";
import { type FailureLog, failedTry } from "./delivery.failure-log.ts";
import type {
  DeliveryAttempt,
  DeliveryKindHandlers,
  DeliveryRecord,
  Prepared,
} from "./delivery.ports.ts";
import type { DeliveryRow } from "./delivery.repo.ts";
import {
  BLOCKED_ADDRESS,
  canCarryBody,
  type ForwardRecord,
  forwardHeaders,
  forwardKey,
  forwardTarget,
  isRetryableStatus,
} from "./forwards.model.ts";
import { toForwardRecord } from "./forwards.repo.ts";
import type { ForwardsStore } from "./forwards.store.ts";

export interface SendDeps {
  forwards: ForwardsStore;
  clock: Clock;
  ids: Ids;
  outbound: OutboundSender;
  logger: Logger;
  /** A slower answer is recorded as a timeout. */
  timeoutMs: number;
  /** Failed replays reach the log, at most a line a minute per endpoint. */
  logFailure: FailureLog;
}

/** What the forward kind reads at send time: the stored request and the endpoint as it is now. */
export interface ForwardKindDeps {
  findRequest(endpointId: string, requestId: string): Promise<CapturedRequest | null>;
  findEndpointById(endpointId: string): Promise<Endpoint | null>;
  timeoutMs: number;
}

/**
 * The outbox's `forward` kind: a due forward is re-sent to the endpoint's CURRENT forward_url
 * with the captured sub-path and query, byte-exact, unsigned; nothing is sent (the delivery
 * ends) when the request or the forward_url is gone. Only 408, 429 and 5xx are retried.
 */
export function forwardKind(deps: ForwardKindDeps): DeliveryKindHandlers {
  return {
    async prepare(delivery: DeliveryRecord): Promise<Prepared> {
      const endpointId = delivery.destinationKey.slice(forwardKey("").length);
      const base = (await deps.findEndpointById(endpointId))?.forwardUrl;
      const request = base ? await deps.findRequest(endpointId, delivery.subjectId) : null;
      if (!base || !request) return { skip: "filtered" };
      return {
        send: {
          url: forwardTarget(base, request.path, request.queryString),
          method: request.method,
          headers: forwardHeaders(request.rawHeaders),
          body: canCarryBody(request.method) ? request.body : "",
          signingSecrets: [],
          timeoutMs: deps.timeoutMs,
        },
      };
    },
    retryableStatus: isRetryableStatus,
  };
}

/** One try through the outbound sender, as a replay delivery and its attempt (not stored yet). */
async function tryReplay(
  input: { request: CapturedRequest; endpointId: string; url: string },
  deps: SendDeps,
) {
  const { request, url } = input;
  const startedAt = deps.clock.now();
  const result = await deps.outbound.send({
    url,
    method: request.method,
    headers: forwardHeaders(request.rawHeaders),
    body: canCarryBody(request.method) ? request.body : null,
    timeoutMs: deps.timeoutMs,
  });
  const answered = result.status !== null;
  const createdAt = isoAt(startedAt);
  const attempt: DeliveryAttempt = {
    id: deps.ids.uuid(),
    deliveryId: deps.ids.uuid(),
    attempt: 1,
    url: result.url,
    method: request.method,
    statusCode: result.status,
    responseHeaders: result.headers,
    responseBody: answered ? new TextDecoder().decode(result.body) : "",
    latencyMs: Math.round(result.latencyMs),
    errorType: result.error?.type ?? null,
    errorCode: result.error?.code ?? null,
    errorMessage: result.error?.message ?? null,
    createdAt,
  };
  const row: DeliveryRow = {
    id: attempt.deliveryId,
    kind: "forward",
    organization_id: null,
    subject_id: request.id,
    destination_key: forwardKey(input.endpointId),
    webhook_id: `msg_${deps.ids.base62(27)}`,
    status: answered && result.error === null ? "delivered" : "failed",
    attempts: 1,
    max_retries: 0,
    attempts_before_requeue: 0,
    next_attempt_at: null,
    locked_until: null,
    last_status_code: result.status,
    last_error_type: attempt.errorType,
    last_error_code: attempt.errorCode,
    last_error_message: attempt.errorMessage,
    last_latency_ms: attempt.latencyMs,
    created_at: createdAt,
    updated_at: createdAt,
  };
  return { row, attempt, record: toForwardRecord(attempt, request.id) };
}

/** What replay and the forward list borrow: the endpoint check of endpoints, the request of capture. */
export interface ForwardsDeps {
  requireEndpoint(organizationId: string, endpointId: string): Promise<Endpoint>;
  findRequest(endpointId: string, requestId: string): Promise<CapturedRequest | null>;
  send: SendDeps;
}

/** An endpoint of the caller's organization, addressed by id. */
export interface EndpointRef {
  organizationId: string;
  endpointId: string;
}

/**
 * Re-sends a stored request now (decisions.md §6 replay): to `url`, else the endpoint's
 * forward_url (422 when neither), with the captured sub-path and query appended. One try.
 */
export async function replayRequest(
  input: EndpointRef & { requestId: string; url?: unknown },
  deps: ForwardsDeps,
): Promise<ForwardRecord> {
  const endpoint = await deps.requireEndpoint(input.organizationId, input.endpointId);
  const request = await deps.findRequest(endpoint.id, input.requestId);
  if (!request) throw endpointErrors.notFound();
  const base = replayBase(input.url, endpoint.forwardUrl, deps.send.outbound);
  const url = forwardTarget(base, request.path, request.queryString);
  const replay = await tryReplay({ request, endpointId: endpoint.id, url }, deps.send);
  const { record } = replay;
  // A target the address policy refuses (by name, once resolved) is the caller's input to fix.
  if (record.error?.startsWith(`${BLOCKED_ADDRESS}:`)) {
    throw validationFailed({ url: [record.error.slice(BLOCKED_ADDRESS.length + 2)] });
  }
  replay.row.organization_id = endpoint.organizationId;
  await deps.send.forwards.insertReplay(replay.row, replay.attempt);
  if (replay.attempt.errorType !== null) {
    deps.send.logFailure({
      ...failedTry({ ...replay.row, destinationKey: replay.row.destination_key }, replay.attempt),
      kind: "replay",
      destinationKey: `replay:${endpoint.id}`,
    });
  }
  return record;
}

function replayBase(url: unknown, forwardUrl: string | null, outbound: OutboundSender): string {
  if (url === undefined || url === null || url === "") {
    if (forwardUrl) return forwardUrl;
    throw endpointErrors.noForwardTarget();
  }
  if (typeof url !== "string" || !isHttpUrl(url)) {
    throw validationFailed({ url: ["must be an absolute http(s) URL"] });
  }
  const problem = outbound.urlProblem(url);
  if (problem) throw validationFailed({ url: [problem] });
  return url;
}

/** A page of a stored request's tries, newest first; 404 unless the request is the organization's. */
export async function listForwards(
  input: EndpointRef & { requestId: string; page: PageRequest },
  deps: ForwardsDeps,
) {
  await deps.requireEndpoint(input.organizationId, input.endpointId);
  if (!(await deps.findRequest(input.endpointId, input.requestId))) throw endpointErrors.notFound();
  const total = await deps.send.forwards.count(input.requestId);
  const items = await deps.send.forwards.listPage(
    input.requestId,
    input.page.offset,
    input.page.pageSize,
  );
  return { items, info: pageInfo(input.page, total) };
}
