import { Type } from "@sinclair/typebox";
import { type AnyElysia, Elysia, t } from "elysia";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../db/db.pagination.ts";
import docsPage from "./api-docs.html" with { type: "file" };
import { embeddedPath } from "./http.embedded.ts";
import { buildOpenApiDocument } from "./http.openapi.document.ts";

/** Body of every error response (decisions.md §4). */
export const ErrorBody = t.Object(
  { error: t.String({ description: "Machine-readable error code or message." }) },
  { additionalProperties: true, description: "Error" },
);

/** Body of a 422 (decisions.md §4). */
export const ValidationErrorBody = t.Object(
  {
    error: t.Literal("validation_failed"),
    errors: t.Record(t.String(), t.Array(t.String()), { description: "Field name → messages." }),
  },
  { description: "Validation failed" },
);

const INFO = {
  title: "Weir API",
  description:
    'Management API of Weir, plus the capture URLs and the live socket. Errors are JSON `{error}`; validation failures are 422 `{error: "validation_failed", errors: {field: [messages]}}`; every response carries `x-request-id`, which the log lines of that request carry too. A known path called with a method it does not serve answers 405 with `Allow`. Operations marked public need no credentials; the others take an API key (`Authorization: Bearer svc_…` or `X-API-Key`), a login token (`Authorization: Bearer <JWT>` from `POST /api/v1/auth/login`) or the web UI\'s session cookie.',
};

const COMPONENTS = {
  securitySchemes: {
    bearer: {
      type: "http",
      scheme: "bearer",
      description: "An API key (`svc_…`) or a login token (JWT)",
    },
    apiKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "An API key" },
    session: {
      type: "apiKey",
      in: "cookie",
      name: "weir_session",
      description: "The web UI's login (httpOnly cookie set by login and register)",
    },
    anonymousToken: {
      type: "apiKey",
      in: "header",
      name: "X-Anonymous-Token",
      description: "The token returned when an anonymous endpoint was created",
    },
    socketToken: {
      type: "apiKey",
      in: "query",
      name: "token",
      description: "An API key or login token, on the socket's URL",
    },
  },
  schemas: {
    Error: {
      type: "object",
      required: ["error"],
      properties: { error: { type: "string" } },
      additionalProperties: true,
    },
  },
};

/**
 * The OpenAPI document at `/api/openapi.json`, built from the running app's routes (cached until
 * routes change), and a readable reference at `/api/docs`: our own page embedded in the binary
 * (no CDN: operators may be offline) that shows each operation's security, parameters, bodies,
 * responses and examples.
 */
export function apiDocs(version: string) {
  let root: AnyElysia | null = null;
  let cached: { routes: number; document: unknown } | null = null;
  return new Elysia({ name: "weir-api-docs" })
    .onStart((app) => {
      root = app;
    })
    .get(
      "/api/openapi.json",
      () => {
        if (!root) throw new Error("the API document is built once the server has started");
        if (cached?.routes !== root.routes.length) {
          const info = { ...INFO, version };
          cached = {
            routes: root.routes.length,
            document: buildOpenApiDocument(root, info, COMPONENTS),
          };
        }
        return cached.document;
      },
      { detail: { hide: true } },
    )
    .get("/api/docs", () => Bun.file(embeddedPath(docsPage)), { detail: { hide: true } });
}

/**
 * The page of every paginated list (db.pagination.ts reads them): spread into a list's
 * documented query. The document builder gives any `page`/`page_size` query parameter these
 * types, so lists that validate them as text still show them as integers.
 */
export const PAGE_QUERY = {
  page: Type.Optional(
    Type.Integer({ minimum: 1, default: 1, description: "1-based page number.", example: 2 }),
  ),
  page_size: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      default: DEFAULT_PAGE_SIZE,
      description: `Items per page (larger is clamped to ${MAX_PAGE_SIZE}).`,
    }),
  ),
};

/** `detail` of a route anyone may call: it says so, rather than forgetting to say anything. */
export const PUBLIC = { security: [] as Record<string, string[]>[] };

/**
 * A success answer documented without a response schema (a schema would also validate and trim
 * the answer): shown in the reference with its example. Spread into a route's `detail`.
 */
export function documentedAnswer(status: number, description: string, example?: unknown) {
  const content = example === undefined ? undefined : { "application/json": { example } };
  return { "x-responses": { [status]: { description, content } } };
}

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema keywords are open-ended.
type Json = Record<string, any>;

/**
 * A TypeBox schema as OpenAPI 3.0 writes it: plain JSON (no symbol metadata), `nullable` for a
 * union with null, `enum` for constants (one enum for a union of them), `additionalProperties`
 * for a record, `example` for the first of `examples`.
 */
export function openApiSchema(schema: unknown): Json {
  const plain = JSON.parse(JSON.stringify(schema)) as Json;
  return toOpenApi(plain);
}

function toOpenApi(node: Json): Json {
  if (Array.isArray(node)) return node.map(toOpenApi) as unknown as Json;
  if (typeof node !== "object" || node === null) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = toOpenApi(value);
  if ("const" in out) {
    out.enum = [out.const];
    delete out.const;
  }
  const members = out.anyOf as Json[] | undefined;
  if (members?.every((m) => m.enum?.length === 1 && m.type === members[0]?.type)) {
    const { anyOf: _, ...own } = out;
    return { type: members[0]?.type, ...own, enum: members.map((m) => m.enum[0]) };
  }
  if (out.patternProperties) {
    const [values] = Object.values(out.patternProperties as Json);
    delete out.patternProperties;
    out.additionalProperties = values && Object.keys(values).length > 0 ? values : true;
  }
  if (Array.isArray(out.anyOf)) {
    const rest = out.anyOf.filter((member: Json) => member.type !== "null");
    if (rest.length === 1 && rest.length < out.anyOf.length) {
      const { anyOf: _, ...own } = out;
      return { ...rest[0], ...own, nullable: true };
    }
  }
  if (Array.isArray(out.examples)) {
    out.example ??= out.examples[0];
    delete out.examples;
  }
  return out;
}

/**
 * The `requestBody` of a route from the very schema its room validates the body with (so the
 * reference cannot drift from what is accepted); the schema's first `examples` entry is the
 * body's example. Spread into a route's `detail` as `requestBody`.
 */
export function schemaBody(schema: unknown, description?: string, required = true) {
  const plain = openApiSchema(schema);
  const example = plain.example;
  return {
    description,
    required,
    content: {
      "application/json": { schema: plain, ...(example === undefined ? {} : { example }) },
    },
  };
}

/**
 * Query parameters documented with their types, from a TypeBox object of the parameters the
 * room reads itself (so Elysia neither coerces nor rejects them: 422s stay the room's). Spread
 * into a route's `detail`; the document builder adds them to the operation's parameters.
 */
export function documentedQuery(schema: unknown) {
  const plain = openApiSchema(schema);
  const required: string[] = plain.required ?? [];
  const parameters = Object.entries((plain.properties ?? {}) as Json).map(([name, property]) => {
    const { description, example, ...rest } = property as Json;
    return {
      name,
      in: "query",
      required: required.includes(name),
      ...(description ? { description } : {}),
      schema: rest,
      ...(example === undefined ? {} : { example }),
    };
  });
  return { "x-parameters": parameters };
}
