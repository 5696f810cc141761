import { type FieldErrors, validationFailed } from "../shared/errors.ts";
import {
  parseVerification,
  type VerificationInput,
} from "../verification/verification.settings.ts";
import {
  CAPTURE_SAFETY_HEADERS,
  type CustomResponse,
  type EndpointStatus,
  NAME_MAX,
  SESSION_HEADERS,
  slugProblem,
} from "./endpoints.model.ts";

/** A valid create request. `slug` null: generate one from the name. */
export interface CreateEndpointInput {
  name: string;
  slug: string | null;
  response: CustomResponse | null;
  forwardUrl: string | null;
  verification: VerificationInput | null;
}

/** A valid update request; absent members stay as they are, null clears response/forward_url. */
export interface UpdateEndpointInput {
  name?: string;
  status?: EndpointStatus;
  response?: CustomResponse | null;
  forwardUrl?: string | null;
  /** null removes the check. */
  verification?: VerificationInput | null;
  /** Sent back unchanged is accepted; a different slug is refused (slugs never change). */
  slug?: string;
}

export const MAX_DELAY_MS = 30_000;
export const MAX_RESPONSE_BODY = 65_536;
export const MAX_URL_LENGTH = 2048;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Headers whose value Weir itself must own in an answer (framing and connection management). */
const RESERVED_RESPONSE_HEADERS = new Set([
  ...Object.keys(CAPTURE_SAFETY_HEADERS),
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "te",
  "trailer",
]);

type Fields = Record<string, unknown>;

/**
 * The endpoint members of a request body: `{debug_endpoint: {...}}` as the contract shows; a body
 * without the wrapper is read as the members themselves.
 */
export function endpointFields(body: unknown): Fields {
  if (!isRecord(body)) return {};
  const wrapped = body.debug_endpoint;
  if (wrapped === undefined) return body;
  return isRecord(wrapped) ? wrapped : { __invalid: true };
}

/**
 * The outbound address policy's verdict on a target URL: null when acceptable, else the reason
 * (decisions.md §14: a denied forward_url is a 422 on save).
 */
export type TargetUrlCheck = (url: string) => string | null;

const anyTarget: TargetUrlCheck = () => null;

/** Checks a create request; throws 422 with every problem by field (decisions.md §4). */
export function validateCreate(body: unknown, checkTarget = anyTarget): CreateEndpointInput {
  const fields = endpointFields(body);
  const errors: FieldErrors = {};
  wrapperProblem(fields, errors);
  const name = readName(fields.name, errors, true);
  const slug = readSlug(fields.slug, errors);
  const response = readResponse(fields.response, errors);
  const forwardUrl = readForwardUrl(fields.forward_url, errors, checkTarget);
  const verification = parseVerification(fields.verification, errors);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return {
    name: name as string,
    slug: slug ?? null,
    response: response ?? null,
    forwardUrl: forwardUrl ?? null,
    verification: verification ?? null,
  };
}

/** Checks an update request (PATCH, or PUT in the `endpoints` family); throws 422 by field. */
export function validateUpdate(body: unknown, checkTarget = anyTarget): UpdateEndpointInput {
  const fields = endpointFields(body);
  const errors: FieldErrors = {};
  wrapperProblem(fields, errors);
  const input: UpdateEndpointInput = {
    name: readName(fields.name, errors, false),
    status: readStatus(fields.status, errors),
    response: readResponse(fields.response, errors),
    forwardUrl: readForwardUrl(fields.forward_url, errors, checkTarget),
    verification: parseVerification(fields.verification, errors, { update: true }),
  };
  if (fields.slug !== undefined && fields.slug !== null) {
    if (typeof fields.slug === "string") input.slug = fields.slug;
    else errors.slug = ["cannot be changed"];
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return input;
}

function wrapperProblem(fields: Fields, errors: FieldErrors): void {
  if (fields.__invalid) errors.debug_endpoint = ["must be an object"];
}

function readName(raw: unknown, errors: FieldErrors, required: boolean): string | undefined {
  if (raw === undefined || raw === null) {
    if (required) errors.name = ["is required"];
    return undefined;
  }
  if (typeof raw !== "string") {
    errors.name = ["must be text"];
    return undefined;
  }
  const name = raw.trim();
  if (name.length === 0) errors.name = ["is required"];
  else if (name.length > NAME_MAX) errors.name = [`must be at most ${NAME_MAX} characters`];
  return name;
}

function readSlug(raw: unknown, errors: FieldErrors): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== "string") {
    errors.slug = ["must be text"];
    return undefined;
  }
  const problem = slugProblem(raw);
  if (problem) errors.slug = [problem];
  return raw;
}

function readStatus(raw: unknown, errors: FieldErrors): EndpointStatus | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (raw === "active" || raw === "paused") return raw;
  errors.status = ["must be active or paused"];
  return undefined;
}

/** `undefined`: not sent; `null`: clear it. */
function readForwardUrl(
  raw: unknown,
  errors: FieldErrors,
  checkTarget: TargetUrlCheck,
): string | null | undefined {
  if (raw === undefined) return undefined;
  if (raw === null || raw === "") return null;
  if (typeof raw !== "string" || !isHttpUrl(raw) || raw.length > MAX_URL_LENGTH) {
    errors.forward_url = [
      `must be an absolute http(s) URL of at most ${MAX_URL_LENGTH} characters`,
    ];
    return undefined;
  }
  const problem = checkTarget(raw);
  if (problem) errors.forward_url = [problem];
  return raw;
}

/** True for an absolute http: or https: URL with a host. */
export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

/** `undefined`: not sent; `null`: back to the default answer. */
function readResponse(raw: unknown, errors: FieldErrors): CustomResponse | null | undefined {
  if (raw === undefined) return undefined;
  if (raw === null) return null;
  if (!isRecord(raw)) {
    errors.response = ["must be an object with status, headers, body and delay_ms"];
    return undefined;
  }
  const status = readInteger(raw.status, 200, 100, 599, "response.status", errors);
  const delayMs = readInteger(raw.delay_ms, 0, 0, MAX_DELAY_MS, "response.delay_ms", errors);
  const headers = readHeaders(raw.headers, errors);
  let body = "";
  if (raw.body !== undefined && raw.body !== null) {
    if (typeof raw.body !== "string") errors["response.body"] = ["must be text"];
    else if (raw.body.length > MAX_RESPONSE_BODY) {
      errors["response.body"] = [`must be at most ${MAX_RESPONSE_BODY} characters`];
    } else body = raw.body;
  }
  return { status, headers, body, delayMs };
}

function readInteger(
  raw: unknown,
  fallback: number,
  min: number,
  max: number,
  field: string,
  errors: FieldErrors,
): number {
  if (raw === undefined || raw === null) return fallback;
  if (typeof raw !== "number" || !Number.isInteger(raw) || raw < min || raw > max) {
    errors[field] = [`must be a whole number from ${min} to ${max}`];
    return fallback;
  }
  return raw;
}

function readHeaders(raw: unknown, errors: FieldErrors): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (!isRecord(raw)) {
    errors["response.headers"] = ["must be an object of header names to text values"];
    return {};
  }
  const problems: string[] = [];
  for (const [name, value] of Object.entries(raw)) {
    if (!TOKEN.test(name)) problems.push(`"${name}" is not a valid header name`);
    else if (RESERVED_RESPONSE_HEADERS.has(name.toLowerCase())) {
      problems.push(`"${name}" is set by Weir and cannot be customised`);
    } else if (SESSION_HEADERS.includes(name.toLowerCase())) {
      problems.push(`"${name}" would act on the browser's session with Weir and is not allowed`);
    } else if (typeof value !== "string") problems.push(`"${name}" must have a text value`);
    else if (/[\r\n\0]/.test(value)) problems.push(`"${name}" has a line break in its value`);
  }
  if (problems.length > 0) errors["response.headers"] = problems;
  return raw as Record<string, string>;
}

function isRecord(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
