import { presentVerification } from "../verification/verification.settings.ts";
import type { CustomResponse } from "./endpoints.model.ts";
import { webhookUrl } from "./endpoints.model.ts";
import type { EndpointView } from "./endpoints.service.ts";

/** The custom response as the API shows it (decisions.md §12), or null for the default answer. */
export function presentResponse(response: CustomResponse | null) {
  if (!response) return null;
  return {
    status: response.status,
    headers: response.headers,
    body: response.body,
    delay_ms: response.delayMs,
  };
}

function commonFields(view: EndpointView) {
  return {
    id: view.id,
    name: view.name,
    slug: view.slug,
    status: view.status,
    organization_id: view.organizationId,
    request_count: view.requestCount,
    last_request_at: view.lastRequestAt,
    refused: {
      rate_limited: view.refusals.rateLimited,
      payload_too_large: view.refusals.tooLarge,
      last_refused_at: view.refusals.lastRefusedAt,
    },
    forward_url: view.forwardUrl,
    response: presentResponse(view.response),
    verification: presentVerification(view.verification),
  };
}

/** An endpoint in the `debug-endpoints` family: `created_at`, capture URL `/debug/{slug}`. */
export function presentDebugEndpoint(view: EndpointView, baseUrl: string) {
  return {
    ...commonFields(view),
    webhook_url: webhookUrl(baseUrl, "debug", view.slug),
    created_at: view.createdAt,
    updated_at: view.updatedAt,
  };
}

/** An endpoint in the `endpoints` family: `inserted_at`, capture URL `/w/{slug}`. */
export function presentEndpoint(view: EndpointView, baseUrl: string) {
  return {
    ...commonFields(view),
    webhook_url: webhookUrl(baseUrl, "w", view.slug),
    inserted_at: view.createdAt,
    updated_at: view.updatedAt,
  };
}

/** How an API family wraps one endpoint and a list of them (decisions.md §12). */
export interface EndpointEnvelope {
  one(view: EndpointView, baseUrl: string): unknown;
  list(views: EndpointView[], baseUrl: string): unknown;
}

/** The two families' envelopes over the same endpoint views. */
export const endpointEnvelopes = {
  /** `debug-endpoints`: bare endpoints, lists as `{debug_endpoints: [...]}`. */
  debug: {
    one: presentDebugEndpoint,
    list: (views, baseUrl) => ({
      debug_endpoints: views.map((view) => presentDebugEndpoint(view, baseUrl)),
    }),
  },
  /** `endpoints`: `{data: endpoint}` and `{data: [...]}`. */
  data: {
    one: (view, baseUrl) => ({ data: presentEndpoint(view, baseUrl) }),
    list: (views, baseUrl) => ({ data: views.map((view) => presentEndpoint(view, baseUrl)) }),
  },
} satisfies Record<string, EndpointEnvelope>;

/** An endpoint of the `endpoints` family as answered; the web UI reads this type. */
export type EndpointJson = ReturnType<typeof presentEndpoint>;

/** An endpoint's custom response as answered. */
export type CustomResponseJson = NonNullable<ReturnType<typeof presentResponse>>;
