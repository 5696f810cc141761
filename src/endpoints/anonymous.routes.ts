import { Elysia, t } from "elysia";
import { ErrorBody } from "../http/http.openapi.ts";
import { isoAt } from "../shared/clock.ts";
import {
  createAnonymousEndpoint,
  getAnonymousEndpoint,
  requireAnonymousEnabled,
} from "./anonymous.service.ts";
import { endpointErrors } from "./endpoints.errors.ts";
import { webhookUrl } from "./endpoints.model.ts";
import type { EndpointsParts } from "./endpoints.room.ts";

const tags = ["anonymous-endpoints"];
const TOKEN_HEADER = "x-anonymous-token";
const tokenHeaders = t.Object({
  [TOKEN_HEADER]: t.Optional(t.String({ description: "The token returned at creation." })),
});
const AnonymousEndpointSchema = t.Object({
  id: t.String(),
  slug: t.String(),
  webhook_url: t.String(),
  expires_at: t.String(),
  request_count: t.Integer(),
  last_request_at: t.Nullable(t.String()),
  created_at: t.String(),
});

/**
 * Anonymous endpoints (decisions.md §6): created without credentials, read with the
 * `X-Anonymous-Token` header. A missing or wrong token is 404, like an unknown id.
 */
export function anonymousEndpointRoutes(room: EndpointsParts) {
  const accessOf = (id: string, headers: Record<string, string | undefined>) => ({
    id,
    token: headers[TOKEN_HEADER] ?? "",
  });
  return new Elysia({ prefix: "/api/v1/anonymous-endpoints" })
    .post(
      "/",
      async ({ request, server, set }) => {
        // Switched off answers 404 before the limiter counts an attempt.
        requireAnonymousEnabled(room.anonymous);
        const peer = server?.requestIP(request)?.address ?? null;
        const address = room.resolveClientIp(peer, request.headers.get("x-forwarded-for"));
        const wait = room.anonymousLimiter.take(address ?? "unknown");
        if (wait > 0) {
          set.headers["retry-after"] = String(wait);
          throw endpointErrors.rateLimited(wait);
        }
        const { endpoint, token } = await createAnonymousEndpoint(room.anonymous);
        set.status = 201;
        return {
          data: {
            id: endpoint.id,
            slug: endpoint.slug,
            webhook_url: webhookUrl(room.publicBaseUrl(request, server), "w", endpoint.slug),
            token,
            expires_at: endpoint.expiresAt ?? isoAt(0),
          },
        };
      },
      {
        response: {
          201: t.Object({
            data: t.Object({
              id: t.String(),
              slug: t.String(),
              webhook_url: t.String(),
              token: t.String({ description: "Shown once; send it as X-Anonymous-Token." }),
              expires_at: t.String(),
            }),
          }),
          404: ErrorBody,
          429: ErrorBody,
          503: ErrorBody,
        },
        detail: {
          tags,
          summary: "Create a temporary endpoint without an account (7 days, 1,000 requests)",
          description:
            "No credentials. Answers 404 when WEIR_ANONYMOUS_ENDPOINTS=off; rate limited per client address.",
          security: [],
        },
      },
    )
    .get(
      "/:id",
      async ({ params, headers, request, server }) => {
        const found = await getAnonymousEndpoint(accessOf(params.id, headers), room.anonymous);
        const { endpoint } = found;
        return {
          data: {
            id: endpoint.id,
            slug: endpoint.slug,
            webhook_url: webhookUrl(room.publicBaseUrl(request, server), "w", endpoint.slug),
            expires_at: endpoint.expiresAt ?? isoAt(0),
            request_count: found.requestCount,
            last_request_at: found.lastRequestAt,
            created_at: endpoint.createdAt,
          },
        };
      },
      {
        headers: tokenHeaders,
        response: { 200: t.Object({ data: AnonymousEndpointSchema }), 404: ErrorBody },
        detail: {
          tags,
          summary: "Get an anonymous endpoint (X-Anonymous-Token)",
          security: [{ anonymousToken: [] }],
        },
      },
    );
}
