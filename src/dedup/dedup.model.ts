import { createHash } from "node:crypto";
import type { FieldErrors } from "../shared/errors.ts";
import {
  type FieldPath,
  type PathStep,
  parseFieldPath,
  type RequestView,
  resolveFieldPath,
} from "../shared/field-path.ts";

/**
 * Deduplication of a source's ingests (interface.md "Sources and deduplication", decisions §8):
 * a key is extracted by one of three strategies, hashed with SHA-256, and a key seen within its
 * TTL marks the request as a duplicate.
 */
export interface DedupConfig {
  enabled: boolean;
  body_path?: string;
  include_fields?: string[];
  exclude_fields?: string[];
  ttl_seconds: number;
}

export const DEFAULT_TTL_SECONDS = 300;
/** interface.md advises fewer than 10 include fields; 50 is where we refuse. */
export const MAX_FIELDS = 50;
export const MAX_TTL_SECONDS = 30 * 24 * 3600;
const STRATEGIES = ["body_path", "include_fields", "exclude_fields"] as const;
const FIELD = "deduplication_config";

/** Validates a config as sent; on success gives it with defaults filled in. */
export function parseDedupConfig(
  input: unknown,
): { config: DedupConfig | null; errors?: undefined } | { errors: FieldErrors } {
  if (input === undefined || input === null) return { config: null };
  if (typeof input !== "object" || Array.isArray(input)) {
    return { errors: { [FIELD]: ["must be an object"] } };
  }
  const raw = input as Record<string, unknown>;
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => {
    const key = `${FIELD}.${field}`;
    errors[key] = [...(errors[key] ?? []), message];
  };
  for (const key of Object.keys(raw)) {
    if (![...STRATEGIES, "enabled", "ttl_seconds"].includes(key)) add(key, "is not a known field");
  }
  const enabled = raw.enabled ?? true;
  if (typeof enabled !== "boolean") add("enabled", "must be true or false");
  const ttl = raw.ttl_seconds ?? DEFAULT_TTL_SECONDS;
  if (!Number.isInteger(ttl) || (ttl as number) < 1 || (ttl as number) > MAX_TTL_SECONDS) {
    add("ttl_seconds", `must be a whole number of seconds from 1 to ${MAX_TTL_SECONDS}`);
  }
  const chosen = STRATEGIES.filter((s) => raw[s] !== undefined);
  if (chosen.length !== 1) {
    add(
      chosen[1] ?? "body_path",
      "exactly one of body_path, include_fields, exclude_fields is required",
    );
  }
  if (raw.body_path !== undefined) checkPath(raw.body_path, "body_path", add);
  for (const list of ["include_fields", "exclude_fields"] as const) {
    if (raw[list] !== undefined) checkPathList(raw[list], list, add);
  }
  if (Object.keys(errors).length > 0) return { errors };
  const config: DedupConfig = { enabled: enabled as boolean, ttl_seconds: ttl as number };
  for (const s of STRATEGIES) if (raw[s] !== undefined) Object.assign(config, { [s]: raw[s] });
  return { config };
}

type AddError = (field: string, message: string) => void;

function checkPath(value: unknown, field: string, add: AddError, bodyOnly = false): void {
  const path = typeof value === "string" ? parseFieldPath(value) : "must be a field path string";
  if (typeof path === "string") add(field, typeof value === "string" ? `"${value}" ${path}` : path);
  else if (bodyOnly && path.root !== "body") add(field, `"${value}" must start with "body."`);
}

function checkPathList(value: unknown, field: "include_fields" | "exclude_fields", add: AddError) {
  if (!Array.isArray(value) || value.length === 0) add(field, "must be a non-empty array");
  else if (value.length > MAX_FIELDS) add(field, `may list at most ${MAX_FIELDS} paths`);
  else for (const path of value) checkPath(path, field, add, field === "exclude_fields");
}

/**
 * The duplicate key of a request under a valid, enabled config: SHA-256 (hex) of a canonical
 * encoding of what the strategy selects (see canonical()).
 */
export function dedupKey(config: DedupConfig, request: RequestView, rawBody: string): string {
  return createHash("sha256")
    .update(keyMaterial(config, request, rawBody))
    .digest("hex");
}

/** The text that is hashed; exported so tests can show which inputs collide and which do not. */
export function keyMaterial(config: DedupConfig, request: RequestView, rawBody: string): string {
  if (config.body_path !== undefined) {
    return `body_path\n${selected(config.body_path, request)}`;
  }
  if (config.include_fields !== undefined) {
    return `include_fields\n${config.include_fields.map((p) => selected(p, request)).join("\n")}`;
  }
  const excluded = (config.exclude_fields ?? []).map(mustParse);
  // A body that is not JSON has no fields to leave out: its raw text is the key.
  if (request.body === undefined) return `exclude_fields raw\n${JSON.stringify(rawBody)}`;
  return `exclude_fields\n${canonical(request.body, exclusionTree(excluded))}`;
}

function selected(text: string, request: RequestView): string {
  const resolved = resolveFieldPath(mustParse(text), request);
  return resolved.found
    ? `${JSON.stringify(text)}=${canonical(resolved.value)}`
    : `${JSON.stringify(text)}!`;
}

function mustParse(text: string): FieldPath {
  const path = parseFieldPath(text);
  if (typeof path === "string") throw new Error(`invalid path ${text}: ${path}`);
  return path;
}

/** Which parts of the body exclude_fields removes: keys and indexes as a tree, `*` for all. */
interface Exclusion {
  removed: boolean;
  children: Map<string, Exclusion>;
}

function exclusionTree(paths: FieldPath[]): Exclusion {
  const root: Exclusion = { removed: false, children: new Map() };
  for (const path of paths) {
    let node = root;
    for (const step of path.steps) {
      const key = stepKey(step);
      let child = node.children.get(key);
      if (!child) {
        child = { removed: false, children: new Map() };
        node.children.set(key, child);
      }
      node = child;
    }
    node.removed = true;
  }
  return root;
}

const stepKey = (step: PathStep): string =>
  step.kind === "key" ? `k:${step.key}` : step.kind === "index" ? `i:${step.index}` : "*";

/**
 * Canonical text of a JSON value: object keys sorted, so key order never matters; strings and
 * numbers keep their JSON forms, so `"1"` and `1` differ; a missing field is written `!` after
 * its path (never a JSON value), so it differs from null and from every present value.
 */
export function canonical(value: unknown, exclusion?: Exclusion): string {
  if (typeof value !== "object" || value === null) return JSON.stringify(value) ?? "null";
  let text: string;
  if (Array.isArray(value)) {
    text = "[";
    for (let index = 0; index < value.length; index++) {
      const child = exclusion && childExclusion(exclusion, `i:${index}`);
      if (child?.removed) continue;
      text += `${text.length > 1 ? "," : ""}${canonical(value[index], child)}`;
    }
    return `${text}]`;
  }
  text = "{";
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record).sort()) {
    const child = exclusion?.children.get(`k:${key}`);
    if (child?.removed) continue;
    text += `${text.length > 1 ? "," : ""}${JSON.stringify(key)}:${canonical(record[key], child)}`;
  }
  return `${text}}`;
}

/** An index is reached by its own `[n]` and by `[*]`; both may hold removals. */
function childExclusion(exclusion: Exclusion, key: string): Exclusion | undefined {
  const exact = exclusion.children.get(key);
  const all = exclusion.children.get("*");
  return exact && all ? mergeExclusions(exact, all) : (exact ?? all);
}

function mergeExclusions(a: Exclusion, b: Exclusion): Exclusion {
  const children = new Map(a.children);
  for (const [key, child] of b.children) {
    const mine = children.get(key);
    children.set(key, mine ? mergeExclusions(mine, child) : child);
  }
  return { removed: a.removed || b.removed, children };
}
