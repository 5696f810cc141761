import type { StoredVerification } from "../verification/verification.settings.ts";

/** Lifecycle state of a debug endpoint (interface.md, States: paused → capture answers 404). */
export type EndpointStatus = "active" | "paused";

/** What an endpoint answers to senders instead of the default 200 (decisions.md §6, §12). */
export interface CustomResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  delayMs: number;
}

/** One debug endpoint as the rooms see it; anonymous ones have no organization. */
export interface Endpoint {
  id: string;
  organizationId: string | null;
  name: string;
  slug: string;
  status: EndpointStatus;
  /** null: the default answer `{message, request_id}`. */
  response: CustomResponse | null;
  forwardUrl: string | null;
  /** Inbound signature check; null: captures are `not_configured`. */
  verification: StoredVerification | null;
  anonymousTokenHash: string | null;
  expiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** An endpoint whose hidden requests are still to be drained (after a delete or an empty). */
export interface DrainingEndpoint {
  endpointId: string;
  /** Deleted: every request goes, then the row. */
  deleted: boolean;
  /** Emptied: requests with an id at or below this go (null when only deleted). */
  clearedThroughId: string | null;
}

/** Captures refused for the plan's rate limit (429) or for size (413), since the endpoint began. */
export interface EndpointRefusals {
  rateLimited: number;
  tooLarge: number;
  lastRefusedAt: string | null;
}

export const NO_REFUSALS: EndpointRefusals = { rateLimited: 0, tooLarge: 0, lastRefusedAt: null };

/** Slug shape of decisions.md §4: lowercase words of letters and digits joined by single hyphens. */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SLUG_MIN = 3;
export const SLUG_MAX = 63;
export const NAME_MAX = 255;
/** Longest name-derived part of a generated slug, leaving room for the suffix. */
const SLUG_STEM_MAX = 40;
export const SLUG_SUFFIX_LENGTH = 8;

/** Why a slug is refused, or null when it is acceptable. */
export function slugProblem(slug: string): string | null {
  if (slug.length < SLUG_MIN || slug.length > SLUG_MAX) {
    return `must be ${SLUG_MIN} to ${SLUG_MAX} characters`;
  }
  if (!SLUG_PATTERN.test(slug)) {
    return "may contain only lowercase letters, digits and single hyphens between them";
  }
  return null;
}

/**
 * The slug stem a name suggests: accents dropped, lowercased, every run of other characters made
 * one hyphen, at most 40 characters; "endpoint" when nothing usable is left.
 */
export function slugStem(name: string): string {
  const stem = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, SLUG_STEM_MAX)
    .replace(/^-+|-+$/g, "");
  return stem === "" ? "endpoint" : stem;
}

/** A generated slug: the name's stem plus a random-looking lowercase suffix (from `randomText`). */
export function generatedSlug(name: string, randomText: string): string {
  const suffix = randomText.toLowerCase().replace(/[^a-z0-9]/g, "");
  return `${slugStem(name)}-${suffix}`;
}

/** The capture URL of an endpoint in one of the two families (interface.md, Debug endpoint). */
export function webhookUrl(baseUrl: string, family: "debug" | "w", slug: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/${family}/${slug}`;
}

/**
 * Headers that act on the browser's session with the host that served them, which is also the
 * UI's: no custom answer or override may set them (decisions.md §14).
 */
export const SESSION_HEADERS: readonly string[] = ["set-cookie", "set-cookie2", "clear-site-data"];

/**
 * Carried by every answer from a capture URL (decisions.md §14): HTML served there runs in an
 * opaque origin (no cookies, no storage, no same-origin requests to the UI's API) and is never
 * sniffed into something else. Weir owns them: an answer's own values are replaced.
 */
export const CAPTURE_SAFETY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "content-security-policy": "sandbox",
};
