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
    forward_url: view.forwardUrl,
    response: presentResponse(view.response),
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
