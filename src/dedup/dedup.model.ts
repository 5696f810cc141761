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
  return Buffer.from(dedupDigest(config, request, rawBody)).toString("hex");
}

/** The key as its 32 bytes (what is stored and compared). */
export function dedupDigest(
  config: DedupConfig,
  request: RequestView,
  rawBody: string,
): Uint8Array {
  // Bun's one-shot SHA-256: ~20x cheaper per call than a node:crypto Hash object here.
  return Bun.SHA256.hash(keyMaterial(config, request, rawBody)) as Uint8Array;
}

/** The text that is hashed; exported so tests can show which inputs collide and which do not. */
export function keyMaterial(config: DedupConfig, request: RequestView, rawBody: string): string {
  if (config.body_path !== undefined) {
    return `body_path\n${selected(config.body_path, request)}`;
  }
  if (config.include_fields !== undefined) {
    return `include_fields\n${config.include_fields.map((p) => selected(p, request)).join("\n")}`;
  }
  // A body that is not JSON has no fields to leave out: its raw text is the key.
  if (request.body === undefined) return `exclude_fields raw\n${JSON.stringify(rawBody)}`;
  return `exclude_fields\n${canonical(request.body, exclusionOf(config.exclude_fields ?? []))}`;
}

function selected(text: string, request: RequestView): string {
  const resolved = resolveFieldPath(mustParse(text), request);
  return resolved.found
    ? `${JSON.stringify(text)}=${canonical(resolved.value)}`
    : `${JSON.stringify(text)}!`;
}

/** Parsed paths by text: a source's config is hashed on every ingest, its paths parsed once. */
const parsedPaths = new Map<string, FieldPath>();
const MAX_CACHED_PATHS = 10_000;

function mustParse(text: string): FieldPath {
  const cached = parsedPaths.get(text);
  if (cached) return cached;
  const path = parseFieldPath(text);
  if (typeof path === "string") throw new Error(`invalid path ${text}: ${path}`);
  if (parsedPaths.size >= MAX_CACHED_PATHS) parsedPaths.clear();
  parsedPaths.set(text, path);
  return path;
}

/** The exclusion tree of a config's list, built once per list (configs are not mutated); exported for tests. */
const exclusions = new WeakMap<readonly string[], Exclusion>();

export function exclusionOf(list: readonly string[]): Exclusion {
  let tree = exclusions.get(list);
  if (!tree) {
    tree = exclusionTree(list.map(mustParse));
    exclusions.set(list, tree);
  }
  return tree;
}

/**
 * Which parts of the body exclude_fields removes, as a tree: children by key, by `[n]` index,
 * and `[*]` for every element. Keys are looked up as they are (no prefixed string built per key).
 */
export interface Exclusion {
  removed: boolean;
  keys: Map<string, Exclusion>;
  indexes: Map<number, Exclusion>;
  all: Exclusion | undefined;
  /** Removes something below (some child exists): the value must be copied to prune it. */
  prunes: boolean;
}

const emptyExclusion = (): Exclusion => ({
  removed: false,
  keys: new Map(),
  indexes: new Map(),
  all: undefined,
  prunes: false,
});

function exclusionTree(paths: FieldPath[]): Exclusion {
  const root = emptyExclusion();
  for (const path of paths) {
    let node = root;
    for (const step of path.steps) node = childFor(node, step);
    node.removed = true;
  }
  return root;
}

function childFor(node: Exclusion, step: PathStep): Exclusion {
  node.prunes = true;
  if (step.kind === "all") {
    node.all ??= emptyExclusion();
    return node.all;
  }
  return step.kind === "key" ? childOf(node.keys, step.key) : childOf(node.indexes, step.index);
}

function childOf<K>(children: Map<K, Exclusion>, name: K): Exclusion {
  let child = children.get(name);
  if (!child) {
    child = emptyExclusion();
    children.set(name, child);
  }
  return child;
}

/**
 * Canonical text of a JSON value: object keys sorted, so key order never matters; strings and
 * numbers keep their JSON forms, so `"1"` and `1` differ; a missing field is written `!` after
 * its path (never a JSON value), so it differs from null and from every present value.
 */
export function canonical(value: unknown, exclusion?: Exclusion): string {
  const copy = sortedCopy(value, exclusion);
  if (copy === UNSORTABLE) return canonicalByParts(value, exclusion);
  return JSON.stringify(copy) ?? "null";
}

/**
 * The canonical text written value by value: the reference `canonical` must equal, and its path
 * for a value the sorted copy cannot hold (see sortedCopy).
 */
export function canonicalByParts(value: unknown, exclusion?: Exclusion): string {
  const parts: string[] = [];
  writeCanonical(value, exclusion, parts);
  return parts.join("");
}

const UNSORTABLE = Symbol("unsortable");

/**
 * `value` without what `exclusion` removes and with every object's keys in sorted order, so a
 * plain JSON.stringify writes the canonical text in native code (~3x cheaper than writing it
 * value by value). Only what changes is copied. UNSORTABLE when an object has a key that starts
 * with a digit (an index-like key is enumerated first whatever the insertion order) or a
 * `__proto__` key (an assignment would not create it).
 */
function sortedCopy(value: unknown, exclusion?: Exclusion): unknown {
  if (typeof value !== "object" || value === null) return value;
  const prune = exclusion?.prunes ? exclusion : undefined;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = prune ? [] : null;
    for (let index = 0; index < value.length; index++) {
      const child = prune && childExclusion(prune, index);
      if (child?.removed) continue;
      const item = sortedCopy(value[index], child);
      if (item === UNSORTABLE) return UNSORTABLE;
      if (!copy && item !== value[index]) copy = value.slice(0, index);
      copy?.push(item);
    }
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let sorted = true;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const first = key.charCodeAt(0);
    if ((first >= 48 && first <= 57) || key === "__proto__") return UNSORTABLE;
    if (i > 0 && (keys[i - 1] as string) > key) sorted = false;
  }
  if (!sorted) sortKeys(keys);
  // A new order or a removal needs a copy; otherwise only a changed child does, from there on.
  let copy: Record<string, unknown> | null = sorted && !prune ? null : {};
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const child = prune?.keys.get(key);
    if (child?.removed) continue;
    const original = record[key];
    const item = sortedCopy(original, child);
    if (item === UNSORTABLE) return UNSORTABLE;
    if (copy) copy[key] = item;
    else if (item !== original) {
      copy = {};
      for (let j = 0; j < i; j++) copy[keys[j] as string] = record[keys[j] as string];
      copy[key] = item;
    }
  }
  return copy ?? value;
}

/**
 * Appends to `parts` and joins once: building the text by concatenation per value (and asking
 * its length each time) cost ~50x a JSON.stringify of the same body.
 */
function writeCanonical(value: unknown, exclusion: Exclusion | undefined, parts: string[]): void {
  if (typeof value === "string") {
    parts.push(quoted(value));
    return;
  }
  if (typeof value === "number") {
    parts.push(Number.isFinite(value) ? String(value) : "null");
    return;
  }
  if (typeof value !== "object" || value === null) {
    parts.push(JSON.stringify(value) ?? "null");
    return;
  }
  let first = true;
  if (Array.isArray(value)) {
    parts.push("[");
    for (let index = 0; index < value.length; index++) {
      const child = exclusion && childExclusion(exclusion, index);
      if (child?.removed) continue;
      if (!first) parts.push(",");
      first = false;
      writeCanonical(value[index], child, parts);
    }
    parts.push("]");
    return;
  }
  parts.push("{");
  const record = value as Record<string, unknown>;
  for (const key of sortKeys(Object.keys(record))) {
    const child = exclusion?.keys.get(key);
    if (child?.removed) continue;
    if (!first) parts.push(",");
    first = false;
    parts.push(quoted(key), ":");
    writeCanonical(record[key], child, parts);
  }
  parts.push("}");
}

/** Characters JSON.stringify would escape (any surrogate goes the slow way: lone ones are escaped). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON escapes.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify's text for a string, without its call for the common plain string. */
function quoted(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** An index is reached by its own `[n]` and by `[*]`; both may hold removals. */
function childExclusion(exclusion: Exclusion, index: number): Exclusion | undefined {
  // Most exclusions name no index: no lookup per element.
  if (exclusion.indexes.size === 0) return exclusion.all;
  const exact = exclusion.indexes.get(index);
  return exact && exclusion.all ? mergeExclusions(exact, exclusion.all) : (exact ?? exclusion.all);
}

function mergeExclusions(a: Exclusion, b: Exclusion): Exclusion {
  const merged = <K>(mine: Map<K, Exclusion>, theirs: Map<K, Exclusion>) => {
    const children = new Map(mine);
    for (const [name, child] of theirs) {
      const own = children.get(name);
      children.set(name, own ? mergeExclusions(own, child) : child);
    }
    return children;
  };
  const all = a.all && b.all ? mergeExclusions(a.all, b.all) : (a.all ?? b.all);
  return {
    removed: a.removed || b.removed,
    keys: merged(a.keys, b.keys),
    indexes: merged(a.indexes, b.indexes),
    all,
    prunes: a.prunes || b.prunes,
  };
}

/** Keys of one object at most this many are sorted in place by insertion (see sortKeys). */
const INSERTION_SORT_MAX = 32;

/**
 * Sorts keys by UTF-16 code units, the canonical order (what the default sort and `>` on strings
 * both compare). A webhook's objects hold a handful of keys: an insertion sort of those costs a
 * fraction of Array.prototype.sort's call, which showed at 4-5 µs an ingest in profiles.
 */
export function sortKeys(keys: string[]): string[] {
  if (keys.length > INSERTION_SORT_MAX) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i] as string;
    let j = i - 1;
    for (; j >= 0 && (keys[j] as string) > key; j--) keys[j + 1] = keys[j] as string;
    keys[j + 1] = key;
  }
  return keys;
}
