import { type FieldErrors, validationFailed } from "../shared/errors.ts";
import type { Sealer } from "../shared/sealed.ts";
import { secretReferences } from "../shared/secret-template.ts";
import {
  DEFAULT_TOLERANCE_SECONDS,
  HMAC_ALGORITHMS,
  type HmacAlgorithm,
  SIGNATURE_ENCODINGS,
  type SignatureEncoding,
  TIMESTAMPED,
  VERIFICATION_TYPES,
  type VerificationRule,
  type VerificationType,
} from "./verification.model.ts";

/**
 * The `verification` setting of debug endpoints and sources (decisions.md §15): read from a
 * request body, stored with its secret sealed, shown without it. The secret may be a value or
 * a `{{NAME}}` template; either way it is sealed as written and resolved only at check time.
 */
export interface VerificationInput extends VerificationRule {
  /** null (updates only): keep the stored secret, as long as the type stays the same. */
  secret: string | null;
}

/** As stored: the rule and the sealed secret (never the secret itself). */
export interface StoredVerification extends VerificationRule {
  sealedSecret: string;
}

/** The sealer's purpose: verification secrets have a key of their own. */
export const VERIFICATION_SEAL_PURPOSE = "inbound-verification-secret";
/** Ties a sealed secret to its owner's row: copied into another row, it does not open. */
export const verificationOwner = (kind: "endpoint" | "source", id: string) => `${kind}:${id}`;

const MAX_SECRET = 1024;
const MAX_TOLERANCE = 86_400;
const MAX_PREFIX = 64;
const MAX_SIGNED = 256;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
const HMAC_ONLY = ["header", "algorithm", "encoding", "prefix", "signed", "timestamp_header"];
const PLACEHOLDERS = /\{(\w+)\}/g;
const WHSEC = /^(whsec_)?[A-Za-z0-9+/]+={0,2}$/;

type Fields = Record<string, unknown>;
const isRecord = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Reads `verification` from a body: `undefined` when not sent, null to remove it, else the
 * checked setting. Problems go into `errors` under `field.member` (e.g. `verification.type`).
 */
export function parseVerification(
  raw: unknown,
  errors: FieldErrors,
  options: { update?: boolean } = {},
): VerificationInput | null | undefined {
  const field = "verification";
  if (raw === undefined) return undefined;
  if (raw === null) return null;
  if (!isRecord(raw)) {
    errors[field] = ["must be an object with type and secret, or null"];
    return undefined;
  }
  const before = Object.keys(errors).length;
  const problem = (member: string, message: string) => {
    errors[`${field}.${member}`] = [message];
  };
  const type = raw.type as VerificationType;
  if (!VERIFICATION_TYPES.includes(type))
    problem("type", `must be one of ${VERIFICATION_TYPES.join(", ")}`);
  // Reads never show the secret: an update that leaves it out keeps the stored one.
  const keep = options.update === true && (raw.secret === undefined || raw.secret === null);
  const secret = keep ? null : readSecret(raw.secret, type, problem);
  const rule = type === "hmac" ? readHmac(raw, problem) : otherRule(raw, problem);
  const timestamped = TIMESTAMPED.includes(type) || rule.timestampHeader !== null;
  let toleranceSeconds: number | null = timestamped ? DEFAULT_TOLERANCE_SECONDS : null;
  if (raw.tolerance_seconds !== undefined && raw.tolerance_seconds !== null) {
    const value = raw.tolerance_seconds;
    if (!timestamped)
      problem("tolerance_seconds", "applies only to schemes with a signed timestamp");
    else if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > MAX_TOLERANCE)
      problem("tolerance_seconds", `must be a whole number from 1 to ${MAX_TOLERANCE}`);
    else toleranceSeconds = value as number;
  }
  if (Object.keys(errors).length > before) return undefined;
  return { ...rule, type, secret, toleranceSeconds };
}

function readSecret(
  raw: unknown,
  type: VerificationType,
  problem: (member: string, message: string) => void,
): string {
  if (typeof raw !== "string" || raw.trim() === "") {
    problem("secret", "is required: the signing secret, or {{SECRET_NAME}}");
    return "";
  }
  if (raw.length > MAX_SECRET) problem("secret", `must be at most ${MAX_SECRET} characters`);
  else if (type === "standard_webhooks" && secretReferences(raw).length === 0 && !WHSEC.test(raw))
    problem("secret", "must be whsec_ followed by base64, as the sender shows it");
  return raw;
}

const NO_HMAC = {
  header: null,
  algorithm: null,
  encoding: null,
  prefix: null,
  signed: null,
  timestampHeader: null,
};

/** A provider scheme: its fields are fixed, so the generic ones are refused. */
function otherRule(raw: Fields, problem: (member: string, message: string) => void) {
  for (const member of HMAC_ONLY) {
    if (raw[member] !== undefined && raw[member] !== null)
      problem(member, "applies only to type hmac");
  }
  return NO_HMAC;
}

function readHmac(raw: Fields, problem: (member: string, message: string) => void) {
  const text = (member: string, fallback: string | null, max: number) => {
    const value = raw[member];
    if (value === undefined || value === null) return fallback;
    if (typeof value !== "string" || value.length > max) {
      problem(member, `must be text of at most ${max} characters`);
      return fallback;
    }
    return value;
  };
  const oneOf = <T extends string>(member: string, values: readonly T[], fallback: T): T => {
    const value = raw[member];
    if (value === undefined || value === null) return fallback;
    if (!values.includes(value as T)) problem(member, `must be one of ${values.join(", ")}`);
    return value as T;
  };
  const header = text("header", null, 128);
  if (header === null) problem("header", "is required: the header that carries the signature");
  else if (!HEADER_NAME.test(header)) problem("header", "must be a header name");
  const signed = text("signed", "{body}", MAX_SIGNED) ?? "{body}";
  const unknown = [...signed.matchAll(PLACEHOLDERS)]
    .map((m) => m[1])
    .filter((name) => name !== "body" && name !== "timestamp");
  if (!signed.includes("{body}")) problem("signed", "must include {body}");
  else if (unknown.length > 0) problem("signed", "may use only {body} and {timestamp}");
  let timestampHeader = text("timestamp_header", null, 128);
  if (signed.includes("{timestamp}")) {
    if (timestampHeader === null)
      problem("timestamp_header", "is required when signed has {timestamp}");
    else if (!HEADER_NAME.test(timestampHeader))
      problem("timestamp_header", "must be a header name");
  } else if (timestampHeader !== null) {
    problem("timestamp_header", "applies only when signed has {timestamp}");
    timestampHeader = null;
  }
  return {
    header: header?.toLowerCase() ?? null,
    algorithm: oneOf<HmacAlgorithm>("algorithm", HMAC_ALGORITHMS, "sha256"),
    encoding: oneOf<SignatureEncoding>("encoding", SIGNATURE_ENCODINGS, "hex"),
    prefix: text("prefix", "", MAX_PREFIX),
    signed,
    timestampHeader: timestampHeader?.toLowerCase() ?? null,
  };
}

/**
 * Seals the secret for its owner's row (see `verificationOwner`). An update without a secret
 * keeps `current`'s sealed one when the type is unchanged; otherwise it is a 422.
 */
export function sealVerification(
  input: VerificationInput,
  sealer: Sealer,
  owner: string,
  current: StoredVerification | null = null,
): StoredVerification {
  const { secret, ...rule } = input;
  if (secret !== null) return { ...rule, sealedSecret: sealer.seal(secret, owner) };
  if (current?.type === input.type) return { ...rule, sealedSecret: current.sealedSecret };
  throw validationFailed({
    "verification.secret": ["is required: the signing secret, or {{SECRET_NAME}}"],
  });
}

/** The setting as its JSON column holds it (null: none). */
export function verificationColumn(stored: StoredVerification | null): string | null {
  return stored ? JSON.stringify(stored) : null;
}

/** The setting from its JSON column. */
export function verificationOf(column: string | null): StoredVerification | null {
  return column ? (JSON.parse(column) as StoredVerification) : null;
}

/** As the API shows it: every field but the secret, which only shows as `secret_set`. */
export function presentVerification(stored: StoredVerification | null) {
  if (!stored) return null;
  const shown: VerificationJson = { type: stored.type, secret_set: true };
  if (stored.toleranceSeconds !== null) shown.tolerance_seconds = stored.toleranceSeconds;
  if (stored.type === "hmac") {
    Object.assign(shown, {
      header: stored.header,
      algorithm: stored.algorithm,
      encoding: stored.encoding,
      prefix: stored.prefix,
      signed: stored.signed,
    });
    if (stored.timestampHeader !== null) shown.timestamp_header = stored.timestampHeader;
  }
  return shown;
}

/** The `verification` member of an endpoint or source as answered. */
export interface VerificationJson {
  type: VerificationType;
  secret_set: true;
  tolerance_seconds?: number;
  header?: string;
  algorithm?: HmacAlgorithm;
  encoding?: SignatureEncoding;
  prefix?: string;
  signed?: string;
  timestamp_header?: string;
}
