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
import type {
  EndpointCap,
  EndpointStats,
  EndpointsStore,
  InsertOutcome,
} from "./endpoints.store.ts";
import { type TargetUrlCheck, validateCreate, validateUpdate } from "./endpoints.validate.ts";

export interface EndpointsDeps {
  store: EndpointsStore;
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
 * `endpoint_limit_reached` (plan), 409 `slug_taken`; the store counts and inserts as one unit.
 */
export async function createEndpoint(
  input: { tenant: Tenant; body: unknown },
  deps: EndpointsDeps,
): Promise<EndpointView> {
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
  const cap = limit === null ? null : { organizationId: input.tenant.organizationId, limit };
  const created = await insertWithSlug(base, fields.slug, cap, deps);
  return withNoRequests(created);
}

/**
 * Inserts `endpoint` under the chosen slug, or under a generated one (the name plus a random
 * suffix), unless `cap` is reached. Shared with anonymous endpoints: slugs are unique across
 * every kind of endpoint.
 */
export async function insertWithSlug(
  endpoint: Endpoint,
  chosen: string | null,
  cap: EndpointCap | null,
  deps: Pick<EndpointsDeps, "store" | "ids">,
  stem = endpoint.name,
): Promise<Endpoint> {
  const slugFor = (attempt: number) => {
    if (chosen !== null) return attempt === 0 ? chosen : null;
    if (attempt >= SLUG_ATTEMPTS) return null;
    return generatedSlug(stem, deps.ids.base62(SLUG_SUFFIX_LENGTH));
  };
  const outcome: InsertOutcome = await deps.store.insert({ endpoint, slugFor, cap });
  if ("inserted" in outcome) return outcome.inserted;
  if (outcome.refused === "limit_reached") {
    throw cap && "organizationId" in cap
      ? endpointErrors.limitReached()
      : endpointErrors.anonymousCapacity();
  }
  throw chosen !== null ? endpointErrors.slugTaken() : endpointErrors.slugGenerationFailed();
}

/** The organization's endpoints with their request counts, newest first. */
export async function listEndpoints(
  organizationId: string,
  deps: Pick<EndpointsDeps, "store">,
): Promise<EndpointView[]> {
  const endpoints = await deps.store.listForOrganization(organizationId);
  const stats = await deps.store.stats(endpoints.map((endpoint) => endpoint.id));
  return endpoints.map((endpoint) => withStats(endpoint, stats.get(endpoint.id)));
}

/** One endpoint of the organization; 404 when unknown or another organization's. */
export async function getEndpoint(
  input: { organizationId: string; endpointId: string },
  deps: Pick<EndpointsDeps, "store">,
): Promise<EndpointView> {
  const endpoint = await requireEndpoint(input.organizationId, input.endpointId, deps);
  return withStats(endpoint, (await deps.store.stats([endpoint.id])).get(endpoint.id));
}

/** The organization's endpoint or a 404: the one isolation check of the room. */
export async function requireEndpoint(
  organizationId: string,
  endpointId: string,
  deps: Pick<EndpointsDeps, "store">,
): Promise<Endpoint> {
  const endpoint = await deps.store.findInOrganization(endpointId, organizationId);
  if (!endpoint) throw endpointErrors.notFound();
  return endpoint;
}

/**
 * Renames, pauses/resumes, or changes the custom response or forward target. A slug sent back
 * unchanged is accepted; a different one is a 422 (slugs never change). Publishes
 * `endpoint.updated` so capture-side caches of the endpoint are refreshed.
 */
export async function updateEndpoint(
  input: { organizationId: string; endpointId: string; body: unknown },
  deps: EndpointsDeps,
): Promise<EndpointView> {
  const changes = validateUpdate(input.body, deps.checkTarget);
  const current = await requireEndpoint(input.organizationId, input.endpointId, deps);
  if (changes.slug !== undefined && changes.slug !== current.slug) {
    throw endpointErrors.slugUnchangeable();
  }
  const updated = await deps.store.update(current.id, input.organizationId, {
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
  return withStats(updated, (await deps.store.stats([updated.id])).get(updated.id));
}

/**
 * Deletes an endpoint: one short write makes it gone for every reader and sender (its slug is
 * free again); its requests and what hangs off them are drained in the background. Then tells
 * the bus (live sockets leave, the drain wakes).
 */
export async function deleteEndpoint(
  input: { organizationId: string; endpointId: string },
  deps: EndpointsDeps,
): Promise<void> {
  const endpoint = await requireEndpoint(input.organizationId, input.endpointId, deps);
  if (!(await deps.store.delete(endpoint.id, input.organizationId, isoAt(deps.clock.now())))) {
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
