import type { PageRequest } from "../db/db.pagination.ts";
import type { DeliveryAttempt, DeliveryPorts, DeliveryRecord } from "../delivery/delivery.ports.ts";
import { sentBody } from "../delivery/delivery.sent.ts";
import { headerRecord } from "../http/outbound/outbound.headers.ts";
import { type FieldErrors, notFound, validationFailed } from "../shared/errors.ts";
import { presentAttempt, presentFilteredBy, presentListedRequest } from "./events.present.ts";
import type { EventQuery, EventStatus, EventsRepo, StoredEvent } from "./events.repo.ts";

const STATUSES: EventStatus[] = [
  "pending",
  "delivered",
  "failed",
  "filtered",
  "paused",
  "unrouted",
];
const decoder = new TextDecoder("utf-8", { fatal: true });

export interface EventsDeps {
  events: EventsRepo;
  delivery: Pick<DeliveryPorts, "listBySubject" | "listAttempts" | "attemptsOfSubject"> | null;
}

/** Reads the list filters of `GET /events`; a bad value is a 422 naming the parameter. */
export function parseEventQuery(query: Record<string, unknown>): EventQuery {
  const errors: FieldErrors = {};
  const out: EventQuery = {};
  const text = (name: string) => {
    const value = query[name];
    return typeof value === "string" && value !== "" ? value : undefined;
  };
  const status = text("status");
  if (status !== undefined) {
    if ((STATUSES as string[]).includes(status)) out.status = status as EventStatus;
    else errors.status = [`must be one of ${STATUSES.join(", ")}`];
  }
  out.sourceId = text("source_id");
  out.bridgeId = text("bridge_id");
  for (const name of ["since", "until"] as const) {
    const value = text(name);
    if (value === undefined) continue;
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) errors[name] = ["must be an ISO 8601 date-time"];
    else out[name] = new Date(ms).toISOString();
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return out;
}

/** The request of an event as the API shows it: text, or base64 when it is not UTF-8. */
function presentRequest(e: StoredEvent) {
  let body: string;
  let encoding: "utf8" | "base64" = "utf8";
  try {
    body = decoder.decode(e.body);
  } catch {
    body = Buffer.from(e.body).toString("base64");
    encoding = "base64";
  }
  return {
    method: e.method,
    path: e.path,
    query: Object.fromEntries(new URLSearchParams(e.queryString)),
    query_string: e.queryString,
    headers: e.headers,
    body,
    body_encoding: encoding,
  };
}

export function presentEvent(
  e: StoredEvent,
  bridgeIds: readonly string[],
  completedAt: string | null = null,
) {
  return {
    id: e.id,
    source_id: e.sourceId,
    bridge_id: bridgeIds[0] ?? null,
    bridge_ids: [...bridgeIds],
    request: presentRequest(e),
    status: e.status,
    ...presentFilteredBy(e),
    created_at: e.createdAt,
    completed_at: e.status === "delivered" ? completedAt : null,
  };
}

/**
 * When each delivered event's last delivery succeeded: the latest change of its deliveries, read
 * for the whole page at once (a list makes one call, so its latency column costs one query).
 */
async function completionTimes(
  events: readonly StoredEvent[],
  deps: EventsDeps,
  known: readonly DeliveryRecord[] | null = null,
): Promise<Map<string, string>> {
  const delivered = events.filter((e) => e.status === "delivered").map((e) => e.id);
  const done = new Map<string, string>();
  if (delivered.length === 0 || !deps.delivery) return done;
  for (const d of known ?? (await deps.delivery.listBySubject("event", delivered))) {
    const seen = done.get(d.subjectId);
    if (seen === undefined || d.updatedAt > seen) done.set(d.subjectId, d.updatedAt);
  }
  return done;
}

/**
 * The request a delivery's latest sending attempt actually sent, after its transformation, with
 * secrets concealed (decisions §15); null before anything was sent. An attempt held by the
 * breaker or failed before sending sent nothing, so the few latest are looked through.
 */
function presentSent(event: StoredEvent, attempts: readonly DeliveryAttempt[]) {
  const attempt = attempts.find((a) => a.sent);
  if (!attempt?.sent) return null;
  const { sent } = attempt;
  // Sent untransformed: the record kept no copy of the event's body (no secret was filled in it).
  const body =
    sent.body === null ? sentBody(event.body, (text) => text) : { ...sent, body: sent.body };
  return {
    method: attempt.method,
    url: attempt.url,
    headers: headerRecord(sent.headers),
    body: body.body,
    body_encoding: body.bodyEncoding,
    body_truncated: body.bodyTruncated,
    body_size: body.bodySize,
  };
}

async function presentDelivery(event: StoredEvent, d: DeliveryRecord, deps: EventsDeps) {
  const recent = d.attempts > 0 ? ((await deps.delivery?.listAttempts(d.id, 5)) ?? []) : [];
  const last = recent[0];
  return {
    id: d.id,
    destination_id: d.destinationKey,
    status: d.status,
    attempts: d.attempts,
    status_code: d.lastStatusCode,
    response_body: last?.responseBody ?? null,
    latency_ms: d.lastLatencyMs,
    error_type: d.lastErrorType,
    error_code: d.lastErrorCode,
    error_message: d.lastErrorMessage,
    next_attempt_at: d.nextAttemptAt,
    sent: presentSent(event, recent),
    created_at: d.createdAt,
  };
}

export function requireEvent(organizationId: string, id: string, deps: EventsDeps): StoredEvent {
  const event = deps.events.find(organizationId, id);
  if (!event) throw notFound();
  return event;
}

/** One event with its deliveries (decisions.md §8). */
export async function getEvent(organizationId: string, id: string, deps: EventsDeps) {
  const event = requireEvent(organizationId, id, deps);
  const deliveries = (await deps.delivery?.listBySubject("event", [event.id])) ?? [];
  const bridgeIds = deps.events.bridgesOf([event.id]).get(event.id) ?? [];
  // Only an event that failed before any delivery has a reason (e.g. its filters' budget).
  const reason = event.status === "failed" ? deps.events.statusReason(event.id) : null;
  return {
    ...presentEvent(
      event,
      bridgeIds,
      (await completionTimes([event], deps, deliveries)).get(event.id),
    ),
    ...(reason ? { status_reason: reason } : {}),
    deliveries: await Promise.all(deliveries.map((d) => presentDelivery(event, d, deps))),
  };
}

export async function listEvents(
  organizationId: string,
  query: EventQuery,
  page: PageRequest,
  deps: EventsDeps,
) {
  const { events, total } = deps.events.page(organizationId, query, page.pageSize, page.offset);
  const bridges = deps.events.bridgesOf(events.map((e) => e.id));
  const completed = await completionTimes(events, deps);
  const listed = events.map((e) => {
    const shown = presentEvent(e, bridges.get(e.id) ?? [], completed.get(e.id));
    return { ...shown, request: presentListedRequest(shown.request, e) };
  });
  return { events: listed, total };
}

/**
 * The attempts of an event's deliveries, oldest first (decisions.md §15), a page at a time: each
 * keeps up to 64 KiB of its answer, and retries can make an event's attempts many.
 */
export async function listEventAttempts(
  organizationId: string,
  id: string,
  page: PageRequest,
  deps: EventsDeps,
) {
  const event = requireEvent(organizationId, id, deps);
  const found = (await deps.delivery?.attemptsOfSubject("event", event.id, {
    limit: page.pageSize,
    offset: page.offset,
  })) ?? { attempts: [], total: 0 };
  return { attempts: found.attempts.map(presentAttempt), total: found.total };
}
