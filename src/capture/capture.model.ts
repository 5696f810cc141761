import type { Plan } from "../auth/auth.model.ts";
import {
  CAPTURE_SAFETY_HEADERS,
  type CustomResponse,
  type EndpointStatus,
  SESSION_HEADERS,
} from "../endpoints/endpoints.model.ts";
import type { VerificationResult } from "../verification/verification.model.ts";
import type { StoredVerification } from "../verification/verification.settings.ts";

/** One captured request as stored (decisions.md §6): what the bus carries after the commit. */
export interface CapturedRequest {
  id: string;
  endpointId: string;
  method: string;
  /** Sub-path after the slug ("" when none). */
  path: string;
  /** Query string without the leading "?" ("" when none). */
  queryString: string;
  /** Lowercased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /**
   * [name, value] pairs as the runtime keeps them: Bun hands the server lowercased names with
   * repeats already joined (except `set-cookie`), well-known headers first, then the others in
   * the order received. Exact spelling and repeats are not recoverable from Bun.serve.
   */
  rawHeaders: [string, string][];
  /** The body exactly as received. */
  body: Uint8Array;
  contentType: string | null;
  size: number;
  remoteIp: string | null;
  /** Status code answered to the sender. */
  status: number;
  createdAt: string;
  /** The signature verdict (decisions.md §15); absent means `not_configured`. */
  verification?: VerificationResult;
}

/** The endpoint a request was captured on, as the bus subscribers need it. */
export interface CaptureTarget {
  id: string;
  organizationId: string | null;
  slug: string;
  forwardUrl: string | null;
}

/** What capture reads about an endpoint before it accepts a request (one prepared lookup). */
export interface CaptureEndpoint extends CaptureTarget {
  status: EndpointStatus;
  /** The organization's plan; anonymous endpoints are held to the free plan's capture rate. */
  plan: Plan;
  /** Anonymous endpoints only: after this instant the endpoint answers 404. */
  expiresAt: string | null;
  response: CustomResponse | null;
  /** Inbound signature check: recorded on each capture, never blocking it. */
  verification: StoredVerification | null;
}

/** Anonymous endpoints keep at most this many requests (decisions.md §6). */
export const ANONYMOUS_REQUEST_LIMIT = 1000;

/** The two capture path families (interface.md, Capture URL shapes). */
export const CAPTURE_PREFIXES = ["/debug/", "/w/"] as const;

/** Where a capture URL points: slug, sub-path after it and the raw query string. */
export interface CaptureLocation {
  slug: string;
  path: string;
  queryString: string;
}

/**
 * Splits a capture URL (`http://host/w/slug/sub/path?x=1`) without decoding anything, so the
 * stored path and query are what the sender wrote. Null when the URL is not a capture URL.
 */
export function locateCapture(url: string): CaptureLocation | null {
  const pathStart = url.indexOf("/", url.indexOf("//") + 2);
  if (pathStart < 0) return null;
  const queryStart = url.indexOf("?", pathStart);
  const pathname = queryStart < 0 ? url.slice(pathStart) : url.slice(pathStart, queryStart);
  const prefix = CAPTURE_PREFIXES.find((p) => pathname.startsWith(p));
  if (!prefix) return null;
  const slugEnd = pathname.indexOf("/", prefix.length);
  const slug = slugEnd < 0 ? pathname.slice(prefix.length) : pathname.slice(prefix.length, slugEnd);
  if (!slug) return null;
  return {
    slug,
    path: slugEnd < 0 ? "" : pathname.slice(slugEnd),
    queryString: queryStart < 0 ? "" : url.slice(queryStart + 1),
  };
}

/** Header values as the runtime hands them out: one string, or several for `set-cookie`. */
export type HeaderValues = Record<string, string | string[]>;

/**
 * The two header views of decisions.md §6 from the runtime's header map: lowercased names with
 * repeats joined by ", ", and the ordered pairs. Bun already lowercases names and joins repeats
 * (all but `set-cookie`), so the pairs cannot hold more than Bun keeps.
 */
export function headerViews(values: HeaderValues): {
  headers: Record<string, string>;
  rawHeaders: [string, string][];
} {
  const headers: Record<string, string> = {};
  const rawHeaders: [string, string][] = [];
  for (const name in values) {
    const value = values[name] as string | string[];
    if (typeof value === "string") {
      headers[name] = value;
      rawHeaders.push([name, value]);
    } else {
      headers[name] = value.join(", ");
      for (const one of value) rawHeaders.push([name, one]);
    }
  }
  return { headers, rawHeaders };
}

/**
 * The lowercased header object derived from the stored pairs (decisions.md §6): repeats joined
 * with ", " in the order received, as `headerViews` builds it at capture time. Only the pairs
 * are stored (migration 0020).
 */
export function headersFromPairs(
  pairs: readonly (readonly [string, string])[],
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of pairs) {
    const key = name.toLowerCase();
    const seen = headers[key];
    headers[key] = seen === undefined ? value : `${seen}, ${value}`;
  }
  return headers;
}

/** Why capture refused a request: the status and the `error` code of the JSON body. */
export interface CaptureRefusal {
  status: 404 | 413 | 429 | 503 | 507;
  error:
    | "not_found"
    | "payload_too_large"
    | "rate_limited"
    | "webhook_limit_reached"
    | "anonymous_capacity_reached"
    | "insufficient_storage";
  /** Seconds, for `Retry-After` on `rate_limited`. */
  retryAfterSeconds?: number;
}

export const REFUSALS = {
  notFound: { status: 404, error: "not_found" },
  tooLarge: { status: 413, error: "payload_too_large" },
  webhookLimit: { status: 429, error: "webhook_limit_reached" },
  anonymousCapacity: { status: 503, error: "anonymous_capacity_reached" },
  insufficientStorage: { status: 507, error: "insufficient_storage" },
} as const satisfies Record<string, CaptureRefusal>;

/** True when an anonymous endpoint's life is over at `nowMs` (its row may still await the sweep). */
export function isExpired(endpoint: Pick<CaptureEndpoint, "expiresAt">, nowMs: number): boolean {
  return endpoint.expiresAt !== null && Date.parse(endpoint.expiresAt) <= nowMs;
}

/** A CORS preflight (fetch spec): OPTIONS naming the method it asks about. */
export function isPreflight(method: string, headers: Record<string, string>): boolean {
  return method === "OPTIONS" && headers["access-control-request-method"] !== undefined;
}

/** What the sender gets back: status, headers and body text. */
export interface CaptureAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Lets another room decide the answer (e.g. `modify_response` actions) once the request is
 * committed: a failing or slow override never costs the capture. A changed status is then
 * written onto the stored request, so it stays the one the sender got. Fields left out keep the
 * endpoint's answer; null or undefined keeps it whole.
 */
export type ResponseOverride = (context: {
  request: CapturedRequest;
  endpoint: CaptureEndpoint;
}) =>
  | Partial<CaptureAnswer>
  | null
  | undefined
  | Promise<Partial<CaptureAnswer> | null | undefined>;

/** Permissive answer to a preflight: any origin, the method and headers asked for, cached a day. */
export function preflightAnswer(headers: Record<string, string>): CaptureAnswer {
  return {
    status: 204,
    headers: {
      "access-control-allow-origin": "*",
      "access-control-allow-methods": headers["access-control-request-method"] || "*",
      "access-control-allow-headers": headers["access-control-request-headers"] || "*",
      "access-control-max-age": "86400",
      ...CAPTURE_SAFETY_HEADERS,
    },
    body: "",
  };
}

/** The default answer `{message, request_id}` (interface.md, Captured request). */
export function defaultAnswer(requestId: string): CaptureAnswer {
  return {
    status: 200,
    headers: {
      "content-type": "application/json",
      "access-control-allow-origin": "*",
      ...CAPTURE_SAFETY_HEADERS,
    },
    // Ids are UUIDs: no escaping needed, and concatenation is cheaper than JSON.stringify here.
    body: `{"message":"Webhook received","request_id":"${requestId}"}`,
  };
}

/**
 * A status a final HTTP answer can carry: 1xx ones (which the endpoint settings allow) cannot
 * end a request, so they are answered, and stored, as 200.
 */
export function answerableStatus(status: number): number {
  return status >= 200 && status <= 599 ? status : 200;
}

/** The endpoint's custom answer (decisions.md §6); CORS stays open unless it says otherwise. */
export function customAnswer(response: CustomResponse): CaptureAnswer {
  return {
    status: answerableStatus(response.status),
    headers: {
      "access-control-allow-origin": "*",
      ...lowercaseKeys(response.headers),
      ...CAPTURE_SAFETY_HEADERS,
    },
    body: response.body,
  };
}

/** Applies an override's fields onto an answer; headers merge, the override winning. */
export function applyOverride(
  answer: CaptureAnswer,
  override: Partial<CaptureAnswer>,
): CaptureAnswer {
  return {
    status: override.status === undefined ? answer.status : answerableStatus(override.status),
    headers: {
      ...answer.headers,
      ...lowercaseKeys(override.headers ?? {}),
      ...CAPTURE_SAFETY_HEADERS,
    },
    body: override.body ?? answer.body,
  };
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[^\0\r\n]*$/;

/**
 * Lowercased names; a header no HTTP response could carry (bad name, CR/LF in the value) is
 * dropped here, before the request is stored, rather than failing the answer after it. So is a
 * session header stored before they were refused on save.
 */
function lowercaseKeys(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const text = String(value);
    const lower = name.toLowerCase();
    if (HEADER_NAME.test(name) && HEADER_VALUE.test(text) && !SESSION_HEADERS.includes(lower)) {
      out[lower] = text;
    }
  }
  return out;
}
