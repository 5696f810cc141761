/**
 * The field path syntax that filters (routing) and deduplication keys share (interface.md, "Field
 * path syntax"): a root (`body.`, `headers.`, `query.`, `path.`), dots between keys, `[n]` for one
 * array element and `[*]` for all of them. Header names are matched case-insensitively.
 */

export const PATH_ROOTS = ["body", "headers", "query", "path"] as const;
export type PathRoot = (typeof PATH_ROOTS)[number];

export type PathStep =
  | { kind: "key"; key: string }
  | { kind: "index"; index: number }
  | { kind: "all" };

export interface FieldPath {
  /** The path as written, for error messages. */
  text: string;
  root: PathRoot;
  steps: PathStep[];
  /** True when a `[*]` appears: the path then selects a list of values. */
  selectsMany: boolean;
}

/** The four parts of a request a path can address; `headers` keys are lowercase. */
export interface RequestView {
  body: unknown;
  headers: Record<string, unknown>;
  query: Record<string, unknown>;
  path: Record<string, unknown>;
}

/** What a path finds: nothing, or a value (for `[*]` paths, the list of values found). */
export type Resolved = { found: false } | { found: true; value: unknown };

const NOT_FOUND: Resolved = { found: false };
const MAX_PATH_LENGTH = 512;
const SEGMENT = /^([^.[\]]*)((?:\[(?:\d+|\*)\])*)$/;
const BRACKET = /\[(\d+|\*)\]/g;

/** Parses `text`, or returns why it is not a path. */
export function parseFieldPath(text: string): FieldPath | string {
  if (text.length === 0) return "must not be empty";
  if (text.length > MAX_PATH_LENGTH) return `must be at most ${MAX_PATH_LENGTH} characters`;
  const [head = "", ...rest] = text.split(".");
  const rootMatch = SEGMENT.exec(head);
  const root = rootMatch?.[1] as PathRoot | undefined;
  if (!rootMatch || !root || !PATH_ROOTS.includes(root)) {
    return `must start with ${PATH_ROOTS.map((r) => `"${r}."`).join(", ")}`;
  }
  const steps: PathStep[] = bracketSteps(rootMatch[2] ?? "");
  for (const segment of rest) {
    const match = SEGMENT.exec(segment);
    const name = match?.[1];
    if (!match || !name) return `has an empty or malformed segment near "${segment}"`;
    const key = root === "headers" && steps.length === 0 ? name.toLowerCase() : name;
    steps.push({ kind: "key", key }, ...bracketSteps(match[2] ?? ""));
  }
  return { text, root, steps, selectsMany: steps.some((s) => s.kind === "all") };
}

function bracketSteps(brackets: string): PathStep[] {
  return [...brackets.matchAll(BRACKET)].map(([, inner]) =>
    inner === "*" ? { kind: "all" } : { kind: "index", index: Number(inner) },
  );
}

/** Looks the path up in a request. */
export function resolveFieldPath(path: FieldPath, request: RequestView): Resolved {
  const values = walk(request[path.root], path.steps);
  if (path.selectsMany) return values === null ? NOT_FOUND : { found: true, value: values };
  return values === null || values.length === 0 ? NOT_FOUND : { found: true, value: values[0] };
}

/**
 * Every value the steps reach. Before a `[*]` one value is followed and a miss is a miss (null);
 * after one, the elements that lack the rest of the path are skipped.
 */
function walk(start: unknown, steps: PathStep[]): unknown[] | null {
  let values = [start];
  let spread = false;
  for (const step of steps) {
    if (step.kind === "all") {
      if (!spread && !Array.isArray(values[0])) return null;
      values = values.flatMap((value) => (Array.isArray(value) ? value : []));
      spread = true;
      continue;
    }
    values = values.map((value) => childOf(value, step)).filter((child) => child !== undefined);
    if (values.length === 0 && !spread) return null;
  }
  return values;
}
function childOf(value: unknown, step: PathStep): unknown {
  if (step.kind === "index") return Array.isArray(value) ? value[step.index] : undefined;
  if (step.kind !== "key" || value === null || typeof value !== "object" || Array.isArray(value)) {
    return undefined;
  }
  return Object.hasOwn(value, step.key) ? (value as Record<string, unknown>)[step.key] : undefined;
}
