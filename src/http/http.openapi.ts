import { openapi } from "@elysiajs/openapi";
import { Elysia, t } from "elysia";
import docsPage from "./api-docs.html" with { type: "file" };
import { embeddedPath } from "./http.embedded.ts";

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

/**
 * The OpenAPI document, generated from the route schemas at `/api/openapi.json`, and a readable
 * page at `/api/docs` that is embedded in the binary (no CDN: operators may be offline).
 */
export function apiDocs(version: string) {
  return new Elysia({ name: "weir-api-docs" })
    .use(
      openapi({
        path: "/api/openapi",
        specPath: "/api/openapi.json",
        provider: null,
        documentation: {
          info: {
            title: "Weir API",
            version,
            description:
              'Management API of Weir. Errors are JSON `{error}`; validation failures are 422 `{error: "validation_failed", errors}`; every response carries `x-request-id`.',
          },
          components: {
            securitySchemes: {
              bearer: { type: "http", scheme: "bearer", description: "svc_ API key or JWT" },
              apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
            },
          },
        },
        exclude: { paths: ["/api/docs", "/api/openapi.json", "/*"] },
      }),
    )
    .get("/api/docs", () => Bun.file(embeddedPath(docsPage)), { detail: { hide: true } });
}
