// Pure rules of transformations (decisions.md §8): how user code is wrapped for the sandbox, what
// a script sees, and how its answer becomes the request that is sent. No sandbox, no I/O.

/** What a transformation receives and returns: the event's request. */
export interface ScriptableRequest {
  method: string;
  path: string;
  query: Record<string, unknown>;
  headers: Record<string, string>;
  /** Parsed when JSON, the text otherwise (null when there is none). */
  body: unknown;
}

export type TransformationErrorCode = "script_error" | "timeout" | "memory_limit";

export interface TransformationError {
  code: TransformationErrorCode;
  message: string;
  /** Where in the user's code a script error was raised (1-based), when known. */
  line?: number;
  column?: number;
}

/** A run's verdict, as the delivery of an event needs it. */
export type TransformationOutcome =
  | { request: ScriptableRequest }
  | { filtered: true }
  | { error: TransformationError };

/** The function the wrapped script exposes; the sandbox calls it with `{request, env}`. */
export const ENTRY = "__weirTransform";

// The prefix takes one line of its own: the user's line N is line N + 1 of the wrapped source.
const PREFIX =
  "var __weirHandlers = Object.create(null); function addHandler(name, fn) { __weirHandlers[String(name)] = fn; }";
const PREFIX_LINES = 1;
const SUFFIX = `
;function ${ENTRY}(input) {
  var handler = __weirHandlers.transform;
  if (typeof handler !== "function") {
    throw new Error('no "transform" handler: call addHandler("transform", (request, context) => request)');
  }
  return handler(input.request, { env: input.env });
}`;

/** The script the sandbox runs for `code`. */
export function wrapSource(code: string): string {
  return `${PREFIX}\n${code}${SUFFIX}`;
}

/** A sandbox failure as a transformation error, located in the user's own lines. */
export function transformationError(
  failure: {
    kind: TransformationErrorCode;
    message: string;
    location?: { line: number; column: number };
  },
  code: string,
): TransformationError {
  const line = (failure.location?.line ?? 0) - PREFIX_LINES;
  // A location in the wrapper (before or after the user's code) is no help to its author.
  if (!failure.location || line < 1 || line > code.split("\n").length) {
    return { code: failure.kind, message: failure.message };
  }
  const { column } = failure.location;
  return {
    code: failure.kind,
    message: `${failure.message} (line ${line}, column ${column})`,
    line,
    column,
  };
}

/** The 422 message of a syntax error, located in the user's own lines when the parser said where. */
export function syntaxErrorMessage(
  failure: { message: string; location?: { line: number; column: number } },
  code: string,
): string {
  const lines = code.split("\n").length;
  const raw = failure.location ? failure.location.line - PREFIX_LINES : null;
  // An error at the very end (an unclosed call) is reported past the user's last line.
  const line = raw === null || raw < 1 ? null : Math.min(raw, lines);
  const where = line !== null ? ` on line ${line}` : "";
  return `SyntaxError${where}: ${failure.message.replace(/^SyntaxError: /, "")}`;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const REQUEST_KEYS = ["method", "path", "query", "headers", "body"];

/** A text body is parsed when it is JSON (by content type or by its first character). */
export function parseBody(body: unknown, headers: Record<string, string>): unknown {
  if (typeof body !== "string") return body ?? null;
  const contentType = Object.entries(headers).find(
    ([name]) => name.toLowerCase() === "content-type",
  );
  const looksJson = /^\s*[[{]/.test(body) || /json/i.test(contentType?.[1] ?? "");
  if (!looksJson) return body;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

function stringHeaders(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  const headers: Record<string, string> = {};
  for (const [name, item] of Object.entries(value)) {
    if (item !== undefined && item !== null) headers[name] = String(item);
  }
  return headers;
}

/** Completes a partial request (the test endpoint's, or an event's) into what scripts see. */
export function toScriptableRequest(value: unknown): ScriptableRequest {
  const input = isRecord(value) ? value : {};
  const headers = stringHeaders(input.headers);
  return {
    method: typeof input.method === "string" ? input.method.toUpperCase() : "POST",
    path: typeof input.path === "string" ? input.path : "/",
    query: isRecord(input.query) ? input.query : {},
    headers,
    body: parseBody(input.body, headers),
  };
}

/**
 * What a script's answer means: null/undefined drop the delivery; an object with request keys is
 * the request to send (missing keys keep the original's); anything else (e.g. an exact chat
 * payload) is the body to send.
 */
export function interpretOutput(
  output: unknown,
  original: ScriptableRequest,
): TransformationOutcome {
  if (output === null || output === undefined) return { filtered: true };
  if (!isRecord(output) || !REQUEST_KEYS.some((key) => key in output)) {
    return { request: { ...original, body: output } };
  }
  return {
    request: {
      method: typeof output.method === "string" ? output.method.toUpperCase() : original.method,
      path: typeof output.path === "string" ? output.path : original.path,
      query: isRecord(output.query) ? output.query : original.query,
      headers: "headers" in output ? stringHeaders(output.headers) : original.headers,
      body: "body" in output ? output.body : original.body,
    },
  };
}
