import { validationFailed } from "../shared/errors.ts";
import {
  VERIFICATION_STATUSES,
  type VerificationStatus,
} from "../verification/verification.model.ts";

/**
 * What a request list may be narrowed to (decisions.md §14): `q`, text found anywhere in the
 * path, query, headers or body; `method`, one or more methods (comma-separated); `since`
 * (inclusive) and `until` (exclusive), ISO 8601 instants.
 */
export interface RequestFilter {
  q: string | null;
  methods: string[];
  since: string | null;
  until: string | null;
  /** Signature verdicts (decisions.md §15), any of them. */
  verification: VerificationStatus[];
}

export const NO_FILTER: RequestFilter = {
  q: null,
  methods: [],
  since: null,
  until: null,
  verification: [],
};

const MAX_QUERY_LENGTH = 256;
const METHOD = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;
/** A date, or a date and time with an optional zone: what people and tools actually send. */
const ISO_INSTANT =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Whether any part of the filter is set, so callers can keep the unfiltered fast path. */
export const isFiltered = (filter: RequestFilter) =>
  filter.q !== null ||
  filter.methods.length > 0 ||
  filter.since !== null ||
  filter.until !== null ||
  filter.verification.length > 0;

/** Reads `q`, `method`, `since`, `until` from a query; anything unusable is a 422 naming it. */
export function parseRequestFilter(query: Record<string, unknown>): RequestFilter {
  const errors: Record<string, string[]> = {};
  const text = (name: string) => {
    const raw = query[name];
    if (raw === undefined || raw === null) return "";
    if (typeof raw !== "string") {
      errors[name] = ["must be given once"];
      return "";
    }
    return raw.trim();
  };
  const q = text("q");
  if (q.length > MAX_QUERY_LENGTH) errors.q = [`must be at most ${MAX_QUERY_LENGTH} characters`];
  const methods = text("method")
    .split(",")
    .map((m) => m.trim())
    .filter(Boolean);
  if (methods.some((m) => !METHOD.test(m)))
    errors.method = ["must be HTTP method names, comma-separated"];
  const since = instant(text("since"), "since", errors);
  const until = instant(text("until"), "until", errors);
  if (since && until && since >= until) errors.until = ["must be later than since"];
  const verification = text("verification")
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);
  if (verification.some((v) => !VERIFICATION_STATUSES.includes(v as VerificationStatus)))
    errors.verification = [`must be ${VERIFICATION_STATUSES.join(", ")} (comma-separated)`];
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return {
    q: q || null,
    methods: [...new Set(methods.map((m) => m.toUpperCase()))],
    since,
    until,
    verification: [...new Set(verification)] as VerificationStatus[],
  };
}

/** An ISO 8601 instant, normalized to the form `created_at` is stored in (UTC, milliseconds). */
function instant(raw: string, name: string, errors: Record<string, string[]>): string | null {
  if (!raw) return null;
  const at = ISO_INSTANT.test(raw) ? Date.parse(raw) : Number.NaN;
  if (Number.isNaN(at)) {
    errors[name] = ["must be an ISO 8601 date or date-time, e.g. 2026-01-31T12:00:00Z"];
    return null;
  }
  return new Date(at).toISOString();
}
