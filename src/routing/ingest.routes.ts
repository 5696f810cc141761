import { Elysia, t } from "elysia";
import { type HeaderValues, headerViews, REFUSALS } from "../capture/capture.model.ts";
import { LOOP_GUARD_HEADER } from "../delivery/forwards.model.ts";
import { readBoundedBody } from "../http/http.body-limit.ts";
import type { DirectRoutes } from "../http/http.direct-routes.ts";
import { ErrorBody } from "../http/http.openapi.ts";
import type { SignedRequest, VerificationResult } from "../verification/verification.model.ts";
import { MAX_ROUTING_HOPS, routingHops } from "./delivery-request.model.ts";
import type { IngestLimits } from "./ingest.limits.ts";
import type { RoutePlan } from "./ingest.model.ts";
import type { IngestService } from "./ingest.service.ts";
import type { IngestTally } from "./ingest.tally.ts";
import { INGEST_PREFIX, type Source } from "./sources.model.ts";

export interface IngestParts {
  ingest: IngestService;
  /** The plan's rate limit per source and stored-bytes quota per organization. */
  limits: IngestLimits;
  maxBodyBytes: number;
  /** The data dir's free-space guard shared with capture (decisions.md §14). */
  disk: { isLow(): boolean; noteWritten(bytes: number): void };
  /** Counts each ingest of a known source for the per-minute log summary. */
  tally: IngestTally;
  /** The signature verdict of a request to a source with a verification setting. */
  verify(source: Source, request: SignedRequest): VerificationResult;
  /** PostgreSQL only: `verify` after awaiting the organization's secrets (ingest.verify.ts). */
  verifyAsync?(source: Source, request: SignedRequest): Promise<VerificationResult>;
  /** Counts a refusal for its signature in the source's stats. */
  rejectedUnverified(source: Source): Promise<void> | undefined;
}

const SIGNATURE_INVALID = { status: 401, error: "signature_invalid" } as const;

type Refusal = { status: number; error: string; retryAfterSeconds?: number };

const refusal = ({ status, error, retryAfterSeconds }: Refusal) => {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (retryAfterSeconds !== undefined) headers["retry-after"] = String(retryAfterSeconds);
  return new Response(`{"error":"${error}"}`, { status, headers });
};

/** Path after `/in/{slug}` and the raw query string, without decoding anything. */
export function locateIngest(
  url: string,
): { slug: string; path: string; queryString: string } | null {
  const pathStart = url.indexOf("/", url.indexOf("//") + 2);
  const queryStart = url.indexOf("?", pathStart);
  const pathname = queryStart < 0 ? url.slice(pathStart) : url.slice(pathStart, queryStart);
  if (!pathname.startsWith(INGEST_PREFIX)) return null;
  const slugEnd = pathname.indexOf("/", INGEST_PREFIX.length);
  const slug = pathname.slice(INGEST_PREFIX.length, slugEnd < 0 ? undefined : slugEnd);
  if (!slug) return null;
  return {
    slug,
    path: slugEnd < 0 ? "" : pathname.slice(slugEnd),
    queryString: queryStart < 0 ? "" : url.slice(queryStart + 1),
  };
}

/** One ingest: read the body within the limit, store the event and its deliveries, answer. */
/** An event already carried MAX_ROUTING_HOPS times by Weir deliveries (a loop, most likely). */
const LOOP_DETECTED = { status: 508, error: "loop_detected" };

async function ingest(
  room: IngestParts,
  request: Request,
  planned: RoutePlan | null | Promise<RoutePlan | null>,
  where: { path: string; queryString: string },
) {
  const plan = planned instanceof Promise ? await planned : planned;
  if (!plan) return refusal(REFUSALS.notFound);
  const { source } = plan;
  const refuse = (answer: Refusal) => {
    room.tally.refused(source, answer);
    return refusal(answer);
  };
  if (room.disk.isLow()) return refuse(REFUSALS.insufficientStorage);
  if (routingHops(request.headers.get(LOOP_GUARD_HEADER)) >= MAX_ROUTING_HOPS) {
    return refuse(LOOP_DETECTED);
  }
  // On PostgreSQL the bucket is the cluster's; SQLite's in-memory take stays synchronous.
  const limited = room.limits.admitShared
    ? await room.limits.admitShared(source)
    : room.limits.admit(source);
  if (limited) return refuse(limited);
  const { headers, rawHeaders } = headerViews(request.headers.toJSON() as HeaderValues);
  const body = await readBoundedBody(request, headers["content-length"], room.maxBodyBytes);
  if (body === null) return refuse(REFUSALS.tooLarge);
  // Before dedup, so an unsigned request cannot use up a dedup key (decisions.md §15).
  if (source.verification) {
    const signed = { headers, body };
    const verdict = room.verifyAsync
      ? await room.verifyAsync(source, signed)
      : room.verify(source, signed);
    if (verdict.status !== "valid") {
      await room.rejectedUnverified(source);
      return refuse(SIGNATURE_INVALID);
    }
  }
  const full = room.limits.admitBody(source, body.byteLength);
  if (full) return refuse(full);
  const outcome = await room.ingest
    .ingest(plan, { method: request.method, ...where, headers, rawHeaders, body })
    .catch((error: unknown) => {
      room.limits.notStored(source, body.byteLength);
      throw error;
    });
  if ("sourceGone" in outcome) {
    room.limits.notStored(source, body.byteLength);
    return refuse(REFUSALS.notFound);
  }
  room.disk.noteWritten(body.byteLength);
  if ("duplicate" in outcome) {
    room.limits.notStored(source, body.byteLength);
    room.tally.duplicate(source);
    return Response.json({ message: "duplicate", duplicate: true });
  }
  room.tally.accepted(source);
  return Response.json({ message: "accepted", event_id: outcome.eventId });
}

const Accepted = t.Object({
  message: t.String({ description: "accepted, or duplicate" }),
  event_id: t.Optional(t.String()),
  duplicate: t.Optional(t.Boolean()),
});
const responses = {
  200: Accepted,
  401: ErrorBody,
  404: ErrorBody,
  413: ErrorBody,
  429: ErrorBody,
  507: ErrorBody,
  508: ErrorBody,
};
const DESCRIPTION =
  'No credentials. Stores the request byte-exact as an event and writes one delivery per matching destination of the source\'s active bridges, then answers 200 `{message: "accepted", event_id}` once both are committed. 401 `signature_invalid` when the source has a verification setting and the signature is missing or wrong (no event; counted as rejected_unverified); 404 `not_found` for an unknown source; 413 `payload_too_large` past max_body_bytes; 429 `rate_limited` with Retry-After past the capture rate of the organization plan (per source), or `event_quota_exceeded` once the organization stores the `event_storage_mb` of its plan in event bodies; 507 `insufficient_storage` while the data dir is low on space; 508 `loop_detected` when `x-weir-forwarded` says Weir deliveries already carried it 5 times.';

/** `/in/{slug}` and any sub-path of it, answered for a request as it came. */
function ingestBySlug(room: IngestParts, request: Request) {
  const where = locateIngest(request.url);
  // On PostgreSQL the plan is read through the stores; SQLite's stays synchronous.
  const plan = !where
    ? null
    : room.ingest.plansAwait
      ? room.ingest.awaitPlanBySlug(where.slug)
      : room.ingest.planBySlug(where.slug);
  return ingest(room, request, plan, {
    path: where?.path ?? "",
    queryString: where?.queryString ?? "",
  });
}

/**
 * The ingest URLs served by Bun.serve's own routes, ahead of Elysia, as capture's are: the
 * framework's per-request work was ~7 % of the server's profile under the ingest load. Methods
 * Bun.serve does not dispatch still reach the Elysia routes below, which do the same.
 */
export function ingestDirectRoutes(room: IngestParts): DirectRoutes {
  const handle = (request: Request) => ingestBySlug(room, request);
  return { "/in/:slug": handle, "/in/:slug/*": handle };
}

/**
 * Ingest URLs: any method on `/in/{slug}` with any sub-path, and `POST
 * /api/v1/sources/{id}/ingest`. `parse: "none"`: the body is read raw here.
 */
export function ingestRoutes(room: IngestParts) {
  const bySlug = ({ request }: { request: Request }) => ingestBySlug(room, request);
  const documented = {
    parse: "none" as const,
    response: responses,
    detail: {
      tags: ["ingest"],
      summary: "Ingest a webhook into a source, any method and sub-path",
      description: DESCRIPTION,
      security: [],
    },
  };
  const hidden = { parse: "none" as const, detail: { hide: true } };
  return new Elysia({ name: "weir-ingest" })
    .all("/in/:slug", bySlug, documented)
    .all("/in/:slug/*", bySlug, hidden)
    .get("/in/:slug", bySlug, hidden)
    .get("/in/:slug/*", bySlug, hidden)
    .post(
      "/api/v1/sources/:id/ingest",
      ({ request, params }) => {
        const queryStart = request.url.indexOf("?");
        const plan = room.ingest.plansAwait
          ? room.ingest.awaitPlanById(params.id)
          : room.ingest.planById(params.id);
        return ingest(room, request, plan, {
          path: "",
          queryString: queryStart < 0 ? "" : request.url.slice(queryStart + 1),
        });
      },
      {
        parse: "none",
        response: responses,
        detail: {
          tags: ["ingest"],
          summary: "Ingest a webhook into a source by id",
          description: DESCRIPTION,
          security: [],
        },
      },
    );
}
