import { toOpenAPISchema } from "@elysiajs/openapi";
import type { AnyElysia } from "elysia";
import { AUTH_GUARD_NAME } from "../auth/auth.guard.ts";
import { EXTRA_PATHS, SUB_PATH_FORMS, subPathOperation } from "./http.openapi.paths.ts";
import { documentedQuery, PAGE_QUERY } from "./http.openapi.ts";

// biome-ignore lint/suspicious/noExplicitAny: OpenAPI objects are open-ended JSON.
type Json = Record<string, any>;

/** The security of every route behind the auth guard: an API key or a login token. */
export const AUTHENTICATED: Record<string, string[]>[] = [
  { bearer: [] },
  { apiKey: [] },
  { session: [] },
];

const EXCLUDE = { paths: ["/api/docs", "/api/openapi.json", "/*"] };
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** `/api/v1/endpoints/:id/` as the OpenAPI path key `/api/v1/endpoints/{id}`. */
export function openApiPath(path: string): string {
  const key = path.replace(/:(\w+)/g, "{$1}").replace(/(.)\/$/, "$1");
  return key;
}

function guarded(route: { hooks?: Json }): boolean {
  const hooks = [...(route.hooks?.transform ?? []), ...(route.hooks?.beforeHandle ?? [])];
  return hooks.some((hook: Json) => hook?.fn?.name === AUTH_GUARD_NAME);
}

/**
 * The OpenAPI document of the running app. Elysia's generator gives paths, bodies and responses
 * from the route schemas; what it cannot know is added from the routes themselves: a route
 * behind the auth guard requires credentials (`security`, and its 401), so the reference can
 * never claim a guarded route is public or the reverse. Routes without the guard must say
 * `security: []` themselves (the completeness test holds every room to it). Paths that are not
 * routes of their own (the socket, the capture sub-path form) come from http.openapi.paths.ts.
 */
export function buildOpenApiDocument(root: AnyElysia, info: Json, components: Json): Json {
  const generated = toOpenAPISchema(root, EXCLUDE) as unknown as Json;
  const paths: Json = {};
  for (const [path, item] of Object.entries(generated.paths as Json)) {
    const key = openApiPath(path);
    paths[key] = { ...(paths[key] ?? {}), ...(item as Json) };
  }
  for (const item of Object.values(paths)) {
    for (const method of METHODS) {
      if (!item[method]) continue;
      mergeDocumentedAnswers(item[method]);
      mergeDocumentedParameters(item[method]);
    }
  }
  for (const route of root.routes as unknown as Json[]) {
    if (!guarded(route)) continue;
    const operation = paths[openApiPath(route.path)]?.[String(route.method).toLowerCase()];
    if (!operation) continue;
    // What the guard accepts, whatever the room wrote: the reference cannot disagree with it.
    operation.security = AUTHENTICATED;
    operation.responses ??= {};
    operation.responses["401"] ??= {
      description: "Missing, malformed, revoked or unknown credentials",
      content: {
        "application/json": {
          schema: { $ref: "#/components/schemas/Error" },
          example: { error: "Invalid or missing API key" },
        },
      },
    };
  }
  for (const [path, item] of Object.entries(EXTRA_PATHS)) paths[path] = item;
  for (const [path, form] of Object.entries(SUB_PATH_FORMS)) {
    const item = paths[path] as Json | undefined;
    if (!item) continue;
    paths[form.path] = Object.fromEntries(
      METHODS.filter((m) => item[m]).map((m) => [m, subPathOperation(item[m], form.summary)]),
    );
  }
  uniqueOperationIds(paths);
  return plainNumbers({
    openapi: "3.0.3",
    info,
    tags: tagsOf(paths),
    paths,
    components: {
      ...components,
      schemas: { ...(generated.components?.schemas ?? {}), ...components.schemas },
    },
  });
}

const numericText = (schema: Json) =>
  schema?.type === "string" && (schema.format === "integer" || schema.format === "numeric");

/**
 * Elysia's `t.Integer` and `t.Numeric` also accept digits in a string (for query strings) and the
 * generator writes that as `anyOf: [string, integer]`; a JSON answer or body never carries such a
 * string, so the reference shows the plain number type.
 */
function plainNumbers(node: Json): Json {
  if (Array.isArray(node)) return node.map(plainNumbers) as unknown as Json;
  if (typeof node !== "object" || node === null) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = plainNumbers(value);
  const members = out.anyOf as Json[] | undefined;
  const [text, number] = members ?? [];
  if (members?.length === 2 && numericText(text as Json) && !numericText(number as Json)) {
    const { anyOf: _, ...own } = out;
    return { ...number, ...own };
  }
  return out;
}

/**
 * An `all` route is one operation id for every method; OpenAPI wants each unique (the reference
 * page links by it), so a shared id gets its method in front: `getAllInBySlug`.
 */
function uniqueOperationIds(paths: Json): void {
  const found = Object.values(paths).flatMap((item) =>
    METHODS.filter((m) => item[m]?.operationId).map((m) => [m, item[m]] as const),
  );
  const count = new Map<string, number>();
  for (const [, op] of found) count.set(op.operationId, (count.get(op.operationId) ?? 0) + 1);
  for (const [method, op] of found) {
    const id = op.operationId as string;
    if ((count.get(id) ?? 0) > 1) op.operationId = `${method}${id[0]?.toUpperCase()}${id.slice(1)}`;
  }
}

/** Answers a route documented in `detail` (http.openapi.ts documentedAnswer) join its responses. */
function mergeDocumentedAnswers(operation: Json): void {
  const extra = operation["x-responses"] as Json | undefined;
  if (!extra) return;
  delete operation["x-responses"];
  operation.responses ??= {};
  for (const [status, answer] of Object.entries(extra)) {
    const existing = operation.responses[status];
    operation.responses[status] = existing ? { ...answer, ...existing } : answer;
  }
}

/** Query parameters a route documented in `detail` (http.openapi.ts documentedQuery) join its own. */
function mergeDocumentedParameters(operation: Json): void {
  const extra = (operation["x-parameters"] ?? []) as Json[];
  delete operation["x-parameters"];
  const own = ((operation.parameters ?? []) as Json[]).filter(
    (p) => !extra.some((e) => e.name === p.name && e.in === p.in),
  );
  const page = pageParameters();
  const merged = [...own, ...extra].map((p) => (p.in === "query" && page[p.name]) || p);
  if (merged.length > 0) operation.parameters = merged;
}

/** One pagination rule for every list (db.pagination.ts), so one way to document it. */
function pageParameters(): Record<string, Json> {
  const { "x-parameters": parameters } = documentedQuery({
    type: "object",
    properties: PAGE_QUERY,
  });
  return Object.fromEntries(parameters.map((p) => [p.name, p]));
}

function tagsOf(paths: Json): Json[] {
  const names = new Set<string>();
  for (const item of Object.values(paths)) {
    for (const method of METHODS) for (const tag of item[method]?.tags ?? []) names.add(tag);
  }
  return [...names].sort().map((name) => ({ name }));
}

/** Every operation of a document as [path, method, operation]. */
export function operationsOf(doc: Json): Array<[string, string, Json]> {
  const found: Array<[string, string, Json]> = [];
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const method of METHODS) if (item[method]) found.push([path, method, item[method]]);
  }
  return found;
}
