import { type DedupConfig, dedupKey, parseDedupConfig } from "../dedup/dedup.model.ts";
import { bodyProblems } from "../shared/body-schema.ts";
import { type FieldErrors, validationFailed } from "../shared/errors.ts";
import { requestView } from "./ingest.model.ts";
import { DedupCheckBody } from "./routing.bodies.ts";
import type { Source } from "./sources.model.ts";

interface CheckedRequest {
  headers?: Record<string, string>;
  query?: Record<string, string>;
  body?: string;
}

const encoder = new TextEncoder();

/**
 * Whether two requests would be duplicates under a source's deduplication settings (the saved ones,
 * or a draft being edited), with the key each yields. The keys come from the ingest's own steps:
 * the same request view (JSON parsed as ingest parses it) and the same hashing.
 */
export function checkDuplicates(source: Source, body: unknown) {
  const input = (body ?? {}) as Record<string, unknown>;
  const own: FieldErrors = {};
  let config: DedupConfig | null = source.deduplicationConfig;
  if (input.settings !== undefined) {
    const parsed = parseDedupConfig(input.settings);
    if (parsed.errors) Object.assign(own, renamed(parsed.errors));
    else config = parsed.config;
  }
  if (!config && Object.keys(own).length === 0) {
    own.settings = ["no deduplication settings: the source has none saved, so send some"];
  }
  const errors = bodyProblems(DedupCheckBody, body ?? {}, own);
  if (Object.keys(errors).length > 0 || !config) throw validationFailed(errors);
  const keyOf = (request: CheckedRequest) => ingestKey(config, request);
  const a = keyOf(input.a as CheckedRequest);
  const b = keyOf(input.b as CheckedRequest);
  return {
    duplicate: config.enabled && a === b,
    enabled: config.enabled,
    key_a: a,
    key_b: b,
    window_seconds: config.ttl_seconds,
  };
}

/** What ingest keys: headers lowercased, the body parsed as JSON when it is, else its text. */
function ingestKey(config: DedupConfig, request: CheckedRequest): string {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    headers[name.toLowerCase()] = value;
  }
  const text = request.body ?? "";
  const view = requestView({
    method: "POST",
    path: "",
    queryString: new URLSearchParams(request.query ?? {}).toString(),
    headers,
    rawHeaders: Object.entries(headers),
    body: encoder.encode(text),
  });
  return dedupKey(config, view, view.body === undefined ? text : "");
}

/** parseDedupConfig names `deduplication_config.*`; here the draft is sent as `settings`. */
function renamed(errors: FieldErrors): FieldErrors {
  return Object.fromEntries(
    Object.entries(errors).map(([key, messages]) => [
      key.replace(/^deduplication_config/, "settings"),
      messages,
    ]),
  );
}
