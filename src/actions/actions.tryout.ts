import type { CapturedRequest } from "../capture/capture.model.ts";
import type { Endpoint } from "../endpoints/endpoints.model.ts";
import { type Clock, isoAt } from "../shared/clock.ts";
import { type FieldErrors, validationFailed } from "../shared/errors.ts";
import { actionErrors } from "./actions.errors.ts";
import type { Action, ActionResult } from "./actions.model.ts";
import type { ActionRuns } from "./actions.runs.ts";
import type { Tenant } from "./actions.service.ts";
import { type UrlCheck, validateNewAction } from "./actions.validate.ts";

/** What running actions through the API borrows: the endpoint check and the stored requests. */
export interface TryoutDeps {
  runs: ActionRuns;
  requireEndpoint(organizationId: string, endpointId: string): Promise<Endpoint>;
  findRequest(endpointId: string, requestId: string): Promise<CapturedRequest | null>;
  plans: Record<Tenant["plan"], { actions_per_endpoint: number }>;
  checkUrl: UrlCheck;
  clock: Clock;
}

async function storedRequest(
  tenant: Tenant,
  endpointId: string,
  requestId: string,
  deps: TryoutDeps,
) {
  const endpoint = await deps.requireEndpoint(tenant.organizationId, endpointId);
  const request = await deps.findRequest(endpoint.id, requestId);
  if (!request) throw actionErrors.notFound();
  return { endpoint, request };
}

/** The latest run's results on a stored request (decisions.md §13); [] when none ran. */
export async function listRunResults(
  tenant: Tenant,
  endpointId: string,
  requestId: string,
  deps: TryoutDeps,
): Promise<ActionResult[]> {
  const { request } = await storedRequest(tenant, endpointId, requestId, deps);
  return deps.runs.lastResults(request.id);
}

/** Runs the current chain on a stored request, with its effects, as a new run (decisions.md §15). */
export async function runAgain(
  tenant: Tenant,
  endpointId: string,
  requestId: string,
  deps: TryoutDeps,
): Promise<ActionResult[]> {
  if (deps.plans[tenant.plan].actions_per_endpoint <= 0) throw actionErrors.featureNotAvailable();
  const { endpoint, request } = await storedRequest(tenant, endpointId, requestId, deps);
  return deps.runs.rerun(tenant, endpoint.id, request);
}

/**
 * Runs a chain without side effects (decisions.md §15): on a stored request (`request_id`) or a
 * sample (`request`), with the saved chain or unsaved `actions`. Nothing is sent or stored.
 */
export async function tryActions(
  tenant: Tenant,
  endpointId: string,
  body: unknown,
  deps: TryoutDeps,
): Promise<ActionResult[]> {
  if (deps.plans[tenant.plan].actions_per_endpoint <= 0) throw actionErrors.featureNotAvailable();
  const endpoint = await deps.requireEndpoint(tenant.organizationId, endpointId);
  const fields = isRecord(body) ? body : {};
  const request = await sampleRequest(tenant, endpoint, fields, deps);
  const chain =
    fields.actions === undefined
      ? await deps.runs.savedChain(endpoint.id)
      : unsavedChain(tenant, endpoint.id, fields.actions, deps);
  return deps.runs.dryRun(tenant, endpoint.id, chain, request);
}

async function sampleRequest(
  tenant: Tenant,
  endpoint: Endpoint,
  fields: Record<string, unknown>,
  deps: TryoutDeps,
): Promise<CapturedRequest> {
  if (typeof fields.request_id === "string") {
    return (await storedRequest(tenant, endpoint.id, fields.request_id, deps)).request;
  }
  const sample = fields.request;
  if (!isRecord(sample)) {
    throw validationFailed({ request: ["give request_id (a stored request) or request"] });
  }
  const headers = isRecord(sample.headers) ? lowercased(sample.headers) : {};
  const query = isRecord(sample.query) ? sample.query : {};
  const body =
    sample.body === undefined || sample.body === null
      ? ""
      : typeof sample.body === "string"
        ? sample.body
        : JSON.stringify(sample.body);
  const bytes = new TextEncoder().encode(body);
  return {
    id: "sample",
    endpointId: endpoint.id,
    method: typeof sample.method === "string" ? sample.method.toUpperCase() : "POST",
    path: typeof sample.path === "string" ? sample.path : "",
    queryString: new URLSearchParams(query as Record<string, string>).toString(),
    headers,
    rawHeaders: Object.entries(headers),
    body: bytes,
    contentType: headers["content-type"] ?? null,
    size: bytes.byteLength,
    remoteIp: null,
    status: 200,
    createdAt: isoAt(deps.clock.now()),
  };
}

/** Unsaved actions, each checked as a create would be; errors named `actions.<i>.<field>`. */
function unsavedChain(
  tenant: Tenant,
  endpointId: string,
  raw: unknown,
  deps: TryoutDeps,
): Action[] {
  if (!Array.isArray(raw)) throw validationFailed({ actions: ["must be an array of actions"] });
  const errors: FieldErrors = {};
  const chain: Action[] = [];
  raw.forEach((item, index) => {
    try {
      const named = isRecord(item) && item.name === undefined ? { ...item, name: item.type } : item;
      const fields = validateNewAction(named, deps.checkUrl);
      const at = isoAt(deps.clock.now());
      chain.push({
        id: `unsaved-${index}`,
        organizationId: tenant.organizationId,
        endpointId,
        ...fields,
        position: index,
        createdAt: at,
        updatedAt: at,
      });
    } catch (error) {
      const found = (error as { details?: { errors?: FieldErrors } }).details?.errors ?? {};
      for (const [field, messages] of Object.entries(found)) {
        errors[`actions.${index}.${field}`] = messages;
      }
    }
  });
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return chain;
}

function lowercased(headers: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
