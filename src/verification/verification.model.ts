import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Inbound signature verification (decisions.md §15): did a webhook really come from its
 * provider, with its body intact? Pure: the caller hands in the opened secret, the headers
 * (lowercased names), the stored body bytes and the time.
 */
export const VERIFICATION_TYPES = [
  "github",
  "stripe",
  "slack",
  "shopify",
  "standard_webhooks",
  "hmac",
] as const;
export type VerificationType = (typeof VERIFICATION_TYPES)[number];

export const HMAC_ALGORITHMS = ["sha1", "sha256", "sha512"] as const;
export type HmacAlgorithm = (typeof HMAC_ALGORITHMS)[number];
export const SIGNATURE_ENCODINGS = ["hex", "base64"] as const;
export type SignatureEncoding = (typeof SIGNATURE_ENCODINGS)[number];

/** What a scheme needs besides the secret; the generic `hmac` fields are null for the others. */
export interface VerificationRule {
  type: VerificationType;
  /** Seconds a signed timestamp may be away from now; null where the scheme has none. */
  toleranceSeconds: number | null;
  header: string | null;
  algorithm: HmacAlgorithm | null;
  encoding: SignatureEncoding | null;
  prefix: string | null;
  /** What is signed, e.g. `{body}` or `{timestamp}.{body}`. */
  signed: string | null;
  timestampHeader: string | null;
}

export const VERIFICATION_STATUSES = ["valid", "invalid", "missing", "not_configured"] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

/** The verdict on one request, with a reason a user understands (null when valid). */
export interface VerificationResult {
  status: VerificationStatus;
  reason: string | null;
}

/** Schemes with a signed timestamp, and their default tolerance. */
export const DEFAULT_TOLERANCE_SECONDS = 300;
export const TIMESTAMPED: readonly VerificationType[] = ["stripe", "slack", "standard_webhooks"];

export const REASONS = {
  noHeader: "no signature header",
  noTimestamp: "no timestamp header",
  malformed: "signature header not understood",
  mismatch: "wrong secret or body changed",
  stale: "timestamp",
  badSecret: "secret not usable for this scheme",
} as const;

export const NOT_CONFIGURED: VerificationResult = { status: "not_configured", reason: null };
const VALID: VerificationResult = { status: "valid", reason: null };
const missing = (reason: string): VerificationResult => ({ status: "missing", reason });
const invalid = (reason: string): VerificationResult => ({ status: "invalid", reason });

/** The request as verification sees it. */
export interface SignedRequest {
  headers: Record<string, string>;
  body: Uint8Array;
}

/** Checks `request` against `rule` with the opened `secret`, at `nowMs`. */
export function verifySignature(
  rule: VerificationRule,
  secret: string,
  request: SignedRequest,
  nowMs: number,
): VerificationResult {
  const check = SCHEMES[rule.type];
  return check(rule, secret, request, nowMs);
}

type Scheme = (
  rule: VerificationRule,
  secret: string,
  request: SignedRequest,
  nowMs: number,
) => VerificationResult;

const SCHEMES: Record<VerificationType, Scheme> = {
  github: (_rule, secret, { headers, body }) => {
    const header = headers["x-hub-signature-256"];
    if (header === undefined) return missing(REASONS.noHeader);
    if (!header.startsWith("sha256=")) return invalid(REASONS.malformed);
    const expected = hmac("sha256", secret, [body]);
    return matchesAny(expected, [fromHex(header.slice(7))]);
  },
  shopify: (_rule, secret, { headers, body }) => {
    const header = headers["x-shopify-hmac-sha256"];
    if (header === undefined) return missing(REASONS.noHeader);
    return matchesAny(hmac("sha256", secret, [body]), [fromBase64(header)]);
  },
  stripe: (rule, secret, { headers, body }, nowMs) => {
    const header = headers["stripe-signature"];
    if (header === undefined) return missing(REASONS.noHeader);
    const parts = header.split(",").map((part) => part.trim().split("="));
    const timestamp = parts.find(([key]) => key === "t")?.[1];
    const signatures = parts.filter(([key]) => key === "v1").map(([, value]) => value ?? "");
    if (!timestamp || signatures.length === 0) return invalid(REASONS.malformed);
    const expected = hmac("sha256", secret, [`${timestamp}.`, body]);
    const verdict = matchesAny(expected, signatures.map(fromHex));
    return verdict.status === "valid" ? fresh(rule, timestamp, nowMs) : verdict;
  },
  slack: (rule, secret, { headers, body }, nowMs) => {
    const header = headers["x-slack-signature"];
    if (header === undefined) return missing(REASONS.noHeader);
    const timestamp = headers["x-slack-request-timestamp"];
    if (timestamp === undefined) return missing(REASONS.noTimestamp);
    if (!header.startsWith("v0=")) return invalid(REASONS.malformed);
    const expected = hmac("sha256", secret, [`v0:${timestamp}:`, body]);
    const verdict = matchesAny(expected, [fromHex(header.slice(3))]);
    return verdict.status === "valid" ? fresh(rule, timestamp, nowMs) : verdict;
  },
  standard_webhooks: (rule, secret, { headers, body }, nowMs) => {
    // Svix, the scheme's origin, still sends `svix-` names; both are the same scheme.
    const header = headers["webhook-signature"] ?? headers["svix-signature"];
    if (header === undefined) return missing(REASONS.noHeader);
    const id = headers["webhook-id"] ?? headers["svix-id"];
    const timestamp = headers["webhook-timestamp"] ?? headers["svix-timestamp"];
    if (id === undefined || timestamp === undefined) return missing(REASONS.noTimestamp);
    const key = standardWebhooksKey(secret);
    if (!key) return invalid(REASONS.badSecret);
    const signatures = header
      .split(" ")
      .filter((one) => one.startsWith("v1,"))
      .map((one) => fromBase64(one.slice(3)));
    if (signatures.length === 0) return invalid(REASONS.malformed);
    const expected = hmac("sha256", key, [`${id}.${timestamp}.`, body]);
    const verdict = matchesAny(expected, signatures);
    return verdict.status === "valid" ? fresh(rule, timestamp, nowMs) : verdict;
  },
  hmac: (rule, secret, { headers, body }, nowMs) => {
    const header = headers[(rule.header ?? "").toLowerCase()];
    if (header === undefined) return missing(REASONS.noHeader);
    const prefix = rule.prefix ?? "";
    if (!header.startsWith(prefix)) return invalid(REASONS.malformed);
    const template = rule.signed ?? "{body}";
    let timestamp: string | undefined;
    if (template.includes("{timestamp}")) {
      timestamp = headers[(rule.timestampHeader ?? "").toLowerCase()];
      if (timestamp === undefined) return missing(REASONS.noTimestamp);
    }
    const parts = signedParts(template, body, timestamp ?? "");
    const expected = hmac(rule.algorithm ?? "sha256", secret, parts);
    const given = header.slice(prefix.length).trim();
    const decoded = rule.encoding === "base64" ? fromBase64(given) : fromHex(given);
    const verdict = matchesAny(expected, [decoded]);
    return verdict.status === "valid" && timestamp !== undefined
      ? fresh(rule, timestamp, nowMs)
      : verdict;
  },
};

/** The pieces of a `signed` template, in order, with the body as its bytes. */
export function signedParts(
  template: string,
  body: Uint8Array,
  timestamp: string,
): (string | Uint8Array)[] {
  const parts: (string | Uint8Array)[] = [];
  for (const piece of template.split(/(\{body\})/)) {
    if (piece === "{body}") parts.push(body);
    else if (piece !== "") parts.push(piece.replaceAll("{timestamp}", timestamp));
  }
  return parts;
}

function hmac(
  algorithm: HmacAlgorithm,
  key: string | Buffer,
  parts: (string | Uint8Array)[],
): Buffer {
  const mac = createHmac(algorithm, key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/** Compared in constant time; only equal lengths reach timingSafeEqual (it throws otherwise). */
function matchesAny(expected: Buffer, given: (Buffer | null)[]): VerificationResult {
  let found = false;
  for (const candidate of given) {
    if (candidate && candidate.length === expected.length && timingSafeEqual(candidate, expected))
      found = true;
  }
  return found ? VALID : invalid(REASONS.mismatch);
}

/** Valid only while the signed timestamp (seconds) is within the tolerance of now. */
function fresh(rule: VerificationRule, timestamp: string, nowMs: number): VerificationResult {
  const seconds = Number(timestamp);
  if (!/^\d{1,12}$/.test(timestamp.trim()) || !Number.isFinite(seconds))
    return invalid(REASONS.stale);
  const tolerance = rule.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  return Math.abs(nowMs / 1000 - seconds) > tolerance ? invalid(REASONS.stale) : VALID;
}

const HEX = /^[0-9a-fA-F]*$/;
function fromHex(text: string): Buffer | null {
  const trimmed = text.trim();
  return HEX.test(trimmed) && trimmed.length % 2 === 0 ? Buffer.from(trimmed, "hex") : null;
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
function fromBase64(text: string): Buffer | null {
  const trimmed = text.trim();
  return BASE64.test(trimmed) ? Buffer.from(trimmed, "base64") : null;
}

/** A Standard Webhooks secret is `whsec_` + base64 of the key bytes. */
function standardWebhooksKey(secret: string): Buffer | null {
  const encoded = secret.startsWith("whsec_") ? secret.slice(6) : secret;
  const key = fromBase64(encoded);
  return key && key.length > 0 ? key : null;
}
