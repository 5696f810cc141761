import type { Plan } from "../auth/auth.model.ts";
import type { AppBus } from "../events.ts";
import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import type { Ids } from "../shared/ids.ts";
import type { PlanTable } from "../shared/plans.ts";
import type { Sealer } from "../shared/sealed.ts";
import {
  sealVerification,
  type VerificationInput,
  verificationOwner,
} from "../verification/verification.settings.ts";
import { endpointErrors } from "./endpoints.errors.ts";
import {
  type Endpoint,
  generatedSlug,
  NO_REFUSALS,
  SLUG_SUFFIX_LENGTH,
} from "./endpoints.model.ts";
import type { EndpointStats, EndpointsRepo } from "./endpoints.repo.ts";
import { type TargetUrlCheck, validateCreate, validateUpdate } from "./endpoints.validate.ts";

export interface EndpointsDeps {
  repo: EndpointsRepo;
  /** The outbound address policy, asked about a forward_url before it is saved. */
  checkTarget: TargetUrlCheck;
  clock: Clock;
  ids: Ids;
  plans: PlanTable;
  bus: Pick<AppBus, "publish">;
  /** Seals verification secrets at rest (decisions.md §15). */
  sealer: Sealer;
}

/** A verification setting sealed to its endpoint; null and undefined pass through. */
function sealedFor(
  endpoint: Pick<Endpoint, "id"> & Partial<Pick<Endpoint, "verification">>,
  input: VerificationInput | null | undefined,
  deps: Pick<EndpointsDeps, "sealer">,
) {
  if (!input) return input;
  const owner = verificationOwner("endpoint", endpoint.id);
  return sealVerification(input, deps.sealer, owner, endpoint.verification ?? null);
}

/** An endpoint with its request count and newest capture time, as both API families show it. */
export type EndpointView = Endpoint & EndpointStats;

/** The organization asking, with the plan whose quota applies. */
export interface Tenant {
  organizationId: string;
  plan: Plan;
}

/** Generated slugs retry on the rare clash of a random suffix. */
const SLUG_ATTEMPTS = 5;

/**
 * Creates an endpoint (interface.md, States: create). Checks in the order 422 (input), 403
 * `endpoint_limit_reached` (plan), 409 `slug_taken`; the count and insert share one transaction.
 */
export function createEndpoint(input: { tenant: Tenant; body: unknown }, deps: EndpointsDeps) {
  const fields = validateCreate(input.body, deps.checkTarget);
  const now = isoAt(deps.clock.now());
  const id = deps.ids.uuid();
  const base: Endpoint = {
    id,
    organizationId: input.tenant.organizationId,
    name: fields.name,
    slug: fields.slug ?? "",
    status: "active",
    response: fields.response,
    forwardUrl: fields.forwardUrl,
    verification: sealedFor({ id }, fields.verification, deps) ?? null,
    anonymousTokenHash: null,
    expiresAt: null,
    createdAt: now,
    updatedAt: now,
  };
  const limit = deps.plans[input.tenant.plan].debug_endpoints;
  const created = deps.repo.transaction(() => {
    if (limit !== null && deps.repo.countForOrganization(input.tenant.organizationId) >= limit) {
      throw endpointErrors.limitReached();
    }
    return insertWithSlug(base, fields.slug, deps);
  });
  return withNoRequests(created);
}

/**
 * Inserts `endpoint` under the chosen slug, or under a generated one (the name plus a random
 * suffix). Shared with anonymous endpoints: slugs are unique across every kind of endpoint.
 */
export function insertWithSlug(
  endpoint: Endpoint,
  chosen: string | null,
  deps: Pick<EndpointsDeps, "repo" | "ids">,
  stem = endpoint.name,
): Endpoint {
  if (chosen !== null) {
    const row = { ...endpoint, slug: chosen };
    if (!deps.repo.insertUnlessSlugTaken(row)) throw endpointErrors.slugTaken();
    return row;
  }
  for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt++) {
    const row = { ...endpoint, slug: generatedSlug(stem, deps.ids.base62(SLUG_SUFFIX_LENGTH)) };
    if (deps.repo.insertUnlessSlugTaken(row)) return row;
  }
  throw endpointErrors.slugGenerationFailed();
}

/** The organization's endpoints with their request counts, newest first. */
export function listEndpoints(organizationId: string, deps: Pick<EndpointsDeps, "repo">) {
  const endpoints = deps.repo.listForOrganization(organizationId);
  const stats = deps.repo.stats(endpoints.map((endpoint) => endpoint.id));
  return endpoints.map((endpoint) => withStats(endpoint, stats.get(endpoint.id)));
}

/** One endpoint of the organization; 404 when unknown or another organization's. */
export function getEndpoint(
  input: { organizationId: string; endpointId: string },
  deps: Pick<EndpointsDeps, "repo">,
): EndpointView {
  const endpoint = requireEndpoint(input.organizationId, input.endpointId, deps);
  return withStats(endpoint, deps.repo.stats([endpoint.id]).get(endpoint.id));
}

/** The organization's endpoint or a 404: the one isolation check of the room. */
export function requireEndpoint(
  organizationId: string,
  endpointId: string,
  deps: Pick<EndpointsDeps, "repo">,
): Endpoint {
  const endpoint = deps.repo.findInOrganization(endpointId, organizationId);
  if (!endpoint) throw endpointErrors.notFound();
  return endpoint;
}

/**
 * Renames, pauses/resumes, or changes the custom response or forward target. A slug sent back
 * unchanged is accepted; a different one is a 422 (slugs never change). Publishes
 * `endpoint.updated` so capture-side caches of the endpoint are refreshed.
 */
export function updateEndpoint(
  input: { organizationId: string; endpointId: string; body: unknown },
  deps: EndpointsDeps,
): EndpointView {
  const changes = validateUpdate(input.body, deps.checkTarget);
  const current = requireEndpoint(input.organizationId, input.endpointId, deps);
  if (changes.slug !== undefined && changes.slug !== current.slug) {
    throw endpointErrors.slugUnchangeable();
  }
  const updated = deps.repo.update(current.id, input.organizationId, {
    name: changes.name,
    status: changes.status,
    response: changes.response,
    forwardUrl: changes.forwardUrl,
    verification: sealedFor(current, changes.verification, deps),
    updatedAt: isoAt(deps.clock.now()),
  });
  if (!updated) throw endpointErrors.notFound();
  deps.bus.publish("endpoint.updated", {
    endpointId: updated.id,
    organizationId: updated.organizationId,
    slug: updated.slug,
  });
  return withStats(updated, deps.repo.stats([updated.id]).get(updated.id));
}

/**
 * Deletes an endpoint: one short write makes it gone for every reader and sender (its slug is
 * free again); its requests and what hangs off them are drained in the background. Then tells
 * the bus (live sockets leave, the drain wakes).
 */
export function deleteEndpoint(
  input: { organizationId: string; endpointId: string },
  deps: EndpointsDeps,
): void {
  const endpoint = requireEndpoint(input.organizationId, input.endpointId, deps);
  if (!deps.repo.delete(endpoint.id, input.organizationId, isoAt(deps.clock.now()))) {
    throw endpointErrors.notFound();
  }
  deps.bus.publish("endpoint.deleted", {
    endpointId: endpoint.id,
    organizationId: endpoint.organizationId,
  });
}

function withStats(endpoint: Endpoint, stats: EndpointStats | undefined): EndpointView {
  return {
    ...endpoint,
    requestCount: stats?.requestCount ?? 0,
    lastRequestAt: stats?.lastRequestAt ?? null,
    refusals: stats?.refusals ?? NO_REFUSALS,
  };
}

function withNoRequests(endpoint: Endpoint): EndpointView {
  return withStats(endpoint, undefined);
}
