import { type Clock, isoAt } from "../shared/clock.ts";
import type { Ids } from "../shared/ids.ts";
import type { PlanTable } from "../shared/plans.ts";
import { createTokenBuckets } from "../shared/token-bucket.ts";
import type { SignedRequest, VerificationResult } from "../verification/verification.model.ts";
import {
  ANONYMOUS_REQUEST_LIMIT,
  applyOverride,
  type CaptureAnswer,
  type CapturedRequest,
  type CaptureEndpoint,
  type CaptureRefusal,
  customAnswer,
  defaultAnswer,
  isExpired,
  isPreflight,
  preflightAnswer,
  REFUSALS,
  type ResponseOverride,
} from "./capture.model.ts";
import type { CaptureRepo } from "./capture.repo.ts";
import type { CaptureWriter, CaptureWritten } from "./capture.writer.ts";

/** The longest custom response delay (decisions.md §12). */
export const MAX_DELAY_MS = 30_000;
/** Endpoints with a bucket still refilling, at most (a bucket refills within seconds). */
const CAPTURE_BUCKETS = 100_000;

/** What capture asks before taking a request: free disk, and the anonymous switch and budget. */
export interface CaptureLimits {
  diskLow(): boolean;
  /** Told the size of each request about to be written (the disk guard resamples on volume). */
  noteWritten(bytes: number): void;
  anonymousEnabled(): boolean;
  /** True once anonymous endpoints together store as many bytes as the instance allows. */
  anonymousFull(): boolean;
  /** Told the size of each anonymous capture once committed. */
  anonymousStored(bytes: number): void;
}

export interface CaptureServiceDeps {
  repo: Pick<CaptureRepo, "findEndpoint" | "countRequests" | "setAnsweredStatus">;
  writer: Pick<CaptureWriter, "write">;
  limits: CaptureLimits;
  clock: Clock;
  ids: Ids;
  plans: PlanTable;
  /** `off` disables the per-endpoint buckets (decisions.md §10). */
  rateLimit: "plan" | "off";
  /** Told when the registered override throws; the endpoint's own answer is used then. */
  onOverrideError?(error: unknown): void;
  /** The signature verdict of a request on an endpoint with a verification setting. */
  verify?(endpoint: CaptureEndpoint, request: SignedRequest): VerificationResult;
}

/** What the HTTP layer read from the sender, body included (already within max_body_bytes). */
export interface CaptureInput {
  method: string;
  path: string;
  queryString: string;
  headers: Record<string, string>;
  rawHeaders: [string, string][];
  body: Uint8Array;
  remoteIp: string | null;
}

/** A stored capture: the answer to give and how long to hold it back first. */
export interface StoredCapture {
  request: CapturedRequest;
  answer: CaptureAnswer;
  delayMs: number;
}

/** A refusal names the endpoint when there is one, so it can be counted and logged on it. */
export type Admission =
  | { endpoint: CaptureEndpoint }
  | { refusal: CaptureRefusal; endpoint?: CaptureEndpoint };

/**
 * The capture use cases: `admitRequest` decides from the slug alone whether a request is taken
 * (so a refused sender's body is never read), `storeRequest` stores it durably and says what to
 * answer. `setResponseOverride` is how another room (actions) takes over the answer.
 */
export function createCaptureService(deps: CaptureServiceDeps) {
  // Keyed by endpoint: room for many more live endpoints than the per-client limiters hold.
  const limiter = createTokenBuckets(CAPTURE_BUCKETS);
  /** Anonymous requests queued but not yet committed, so the cap also holds under a burst. */
  const inFlight = new Map<string, number>();
  let override: ResponseOverride | null = null;
  /**
   * Endpoints looked up during the current event-loop turn. Requests that arrive together share
   * one lookup; the memo is dropped at the end of the turn, so a pause or delete made by any
   * later request is seen by the next capture.
   */
  const turnMemo = new Map<string, CaptureEndpoint | null>();
  const forgetTurn = () => turnMemo.clear();
  const findEndpoint = (slug: string) => {
    let endpoint = turnMemo.get(slug);
    if (endpoint === undefined) {
      endpoint = deps.repo.findEndpoint(slug);
      if (turnMemo.size === 0) setImmediate(forgetTurn);
      turnMemo.set(slug, endpoint);
    }
    return endpoint;
  };

  const anonymousLimitReached = (endpointId: string) =>
    deps.repo.countRequests(endpointId) + (inFlight.get(endpointId) ?? 0) >=
    ANONYMOUS_REQUEST_LIMIT;

  const anonymousRefusal = (endpointId: string): CaptureRefusal | null => {
    if (!deps.limits.anonymousEnabled()) return REFUSALS.notFound;
    if (anonymousLimitReached(endpointId)) return REFUSALS.webhookLimit;
    if (deps.limits.anonymousFull()) return REFUSALS.anonymousCapacity;
    return null;
  };

  const admitRequest = (slug: string): Admission => {
    const endpoint = findEndpoint(slug);
    const now = deps.clock.now();
    if (endpoint?.status !== "active" || isExpired(endpoint, now)) {
      return { refusal: REFUSALS.notFound };
    }
    if (endpoint.organizationId === null) {
      const refusal = anonymousRefusal(endpoint.id);
      if (refusal) return { refusal, endpoint };
    }
    // Before SQLite would fail on a full disk, and before the body is read (decisions.md §14).
    if (deps.limits.diskLow()) return { refusal: REFUSALS.insufficientStorage };
    if (deps.rateLimit === "plan") {
      const quota = deps.plans[endpoint.plan];
      const wait = limiter.take(
        endpoint.id,
        { ratePerSecond: quota.capture_rate_per_second, burst: quota.capture_burst },
        now,
      );
      if (wait > 0) {
        const refusal: CaptureRefusal = {
          status: 429,
          error: "rate_limited",
          retryAfterSeconds: wait,
        };
        return { refusal, endpoint };
      }
    }
    return { endpoint };
  };

  /** The answer as the registered override changes it. */
  const overridden = async (
    change: ResponseOverride,
    answer: CaptureAnswer,
    request: CapturedRequest,
    endpoint: CaptureEndpoint,
  ) => {
    try {
      const changes = await change({ request, endpoint });
      return changes ? applyOverride(answer, changes) : answer;
    } catch (error) {
      // A failing override must not cost the sender its capture.
      deps.onOverrideError?.(error);
      return answer;
    }
  };

  const storeRequest = async (
    endpoint: CaptureEndpoint,
    input: CaptureInput,
  ): Promise<StoredCapture | { refusal: CaptureRefusal }> => {
    const request: CapturedRequest = {
      id: deps.ids.uuid(),
      endpointId: endpoint.id,
      method: input.method,
      path: input.path,
      queryString: input.queryString,
      headers: input.headers,
      rawHeaders: input.rawHeaders,
      body: input.body,
      contentType: input.headers["content-type"] ?? null,
      size: input.body.byteLength,
      remoteIp: input.remoteIp,
      status: 200,
      createdAt: isoAt(deps.clock.now()),
    };
    // Recorded, never enforced: a debug endpoint shows what came, signed or not (decisions.md §15).
    if (endpoint.verification && deps.verify) request.verification = deps.verify(endpoint, input);
    // A preflight is answered for the browser's sake whatever the endpoint's custom answer is.
    const preflight = isPreflight(request.method, request.headers);
    let answer = preflight
      ? preflightAnswer(request.headers)
      : endpoint.response
        ? customAnswer(endpoint.response)
        : defaultAnswer(request.id);
    request.status = answer.status;
    // Requests admitted together all saw room before any body was read: the place is taken
    // here, in one step with its check, so a burst cannot pass an anonymous endpoint's cap.
    const place = endpoint.organizationId === null ? takeAnonymousPlace(endpoint.id) : null;
    if (place === false) return { refusal: REFUSALS.webhookLimit };
    deps.limits.noteWritten(request.size);
    const written = await write(request, endpoint, place);
    if (written === "full") return { refusal: REFUSALS.webhookLimit };
    if (!written) return { refusal: REFUSALS.notFound };
    // After the commit: whatever the override does, the capture is already stored.
    if (override && !preflight) {
      answer = await overridden(override, answer, request, endpoint);
      if (answer.status !== request.status) {
        request.status = answer.status;
        deps.repo.setAnsweredStatus(request.id, answer.status);
      }
    }
    const delayMs = preflight ? 0 : (endpoint.response?.delayMs ?? 0);
    return { request, answer, delayMs: Math.min(MAX_DELAY_MS, Math.max(0, delayMs)) };
  };

  /**
   * Takes one of an anonymous endpoint's places until its request is committed or refused, or
   * answers false when none is left; the returned function gives the place back.
   */
  const takeAnonymousPlace = (endpointId: string): (() => void) | false => {
    if (anonymousLimitReached(endpointId)) return false;
    inFlight.set(endpointId, (inFlight.get(endpointId) ?? 0) + 1);
    return () => {
      const left = (inFlight.get(endpointId) ?? 1) - 1;
      if (left > 0) inFlight.set(endpointId, left);
      else inFlight.delete(endpointId);
    };
  };

  /**
   * Queues the request for the next group commit; false when its endpoint was deleted meanwhile.
   * An anonymous endpoint's place is given back once the commit has counted the request.
   */
  const write = (
    request: CapturedRequest,
    endpoint: CaptureEndpoint,
    place: (() => void) | null,
  ): Promise<CaptureWritten> =>
    place ? writeInPlace(request, endpoint, place) : deps.writer.write(request, endpoint);

  const writeInPlace = async (
    request: CapturedRequest,
    endpoint: CaptureEndpoint,
    place: () => void,
  ): Promise<CaptureWritten> => {
    try {
      const written = await deps.writer.write(request, endpoint);
      if (written === true) deps.limits.anonymousStored(request.size);
      return written;
    } finally {
      place();
    }
  };

  return {
    admitRequest,
    storeRequest,
    /** Registers the room that may change answers (null removes it). One at a time. */
    setResponseOverride(next: ResponseOverride | null): void {
      override = next;
    },
  };
}

export type CaptureService = ReturnType<typeof createCaptureService>;
