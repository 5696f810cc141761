import { type DedupConfig, parseDedupConfig } from "../dedup/dedup.model.ts";
import { generatedSlug } from "../endpoints/endpoints.model.ts";
import type { FieldErrors } from "../shared/errors.ts";
import type { StoredVerification } from "../verification/verification.settings.ts";

/** A source as the routing room keeps it (decisions.md §8). */
export interface Source {
  id: string;
  organizationId: string;
  name: string;
  type: string;
  slug: string;
  deduplicationConfig: DedupConfig | null;
  /** Inbound signature check: an ingest without a valid signature is refused (401). */
  verification: StoredVerification | null;
  createdAt: string;
  updatedAt: string;
}

export const NAME_MAX = 255;
const TYPE_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;

/** The prefix of ingest URLs; like capture URLs, the sub-path after the slug is kept. */
export const INGEST_PREFIX = "/in/";

export const ingestUrl = (baseUrl: string, slug: string) => `${baseUrl}${INGEST_PREFIX}${slug}`;

/** A fresh source slug: the name's stem and a random suffix (slugs are global). */
export const sourceSlug = (name: string, random: string) => generatedSlug(name, random);

type Body = Record<string, unknown>;

export function asObject(body: unknown): Body {
  return typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Body) : {};
}

/** Adds a name problem to `errors` under `field`; gives the trimmed name when it is good. */
export function checkName(value: unknown, field: string, errors: FieldErrors): string {
  if (typeof value !== "string" || value.trim() === "") {
    errors[field] = ["is required"];
    return "";
  }
  if (value.length > NAME_MAX) errors[field] = [`must be at most ${NAME_MAX} characters`];
  return value.trim();
}

function checkType(value: unknown, field: string, errors: FieldErrors): string {
  if (value === undefined) return "webhook";
  if (typeof value !== "string" || !TYPE_PATTERN.test(value)) {
    errors[field] = ["must be a short lowercase word such as webhook"];
    return "webhook";
  }
  return value;
}

/** `{name, type?, deduplication_config?}` of a source create (or of a bridge's inline source). */
export function parseSourceInput(
  body: unknown,
  prefix = "",
): { name: string; type: string; deduplicationConfig: DedupConfig | null; errors: FieldErrors } {
  const raw = asObject(body);
  const errors: FieldErrors = {};
  const name = checkName(raw.name, `${prefix}name`, errors);
  const type = checkType(raw.type, `${prefix}type`, errors);
  const dedup = parseDedupConfig(raw.deduplication_config);
  if (dedup.errors) {
    for (const [key, messages] of Object.entries(dedup.errors))
      errors[`${prefix}${key}`] = messages;
  }
  return { name, type, deduplicationConfig: dedup.errors ? null : dedup.config, errors };
}
