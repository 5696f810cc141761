import { type AnyElysia, Elysia, t } from "elysia";
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
