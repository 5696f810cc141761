import { createHash, timingSafeEqual } from "node:crypto";
import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import type { Config } from "../shared/config.table.ts";
import type { Ids } from "../shared/ids.ts";
import { endpointErrors } from "./endpoints.errors.ts";
import type { Endpoint } from "./endpoints.model.ts";
import { insertWithSlug } from "./endpoints.service.ts";
import type { EndpointsStore } from "./endpoints.store.ts";

/** Anonymous endpoints live at most 7 days (interface.md, Limits). */
export const ANONYMOUS_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
const TOKEN_LENGTH = 43; // base62: about 256 bits
export const ANONYMOUS_NAME = "Anonymous endpoint";

export interface AnonymousDeps {
  store: EndpointsStore;
  clock: Clock;
  ids: Ids;
  /** Read at each call (decisions.md §14). */
  config: Pick<Config, "anonymous_endpoints" | "anonymous_max_endpoints">;
}

/** An anonymous endpoint and its reading token, as of a token check. */
export interface AnonymousAccess {
  id: string;
  token: string;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** Anonymous endpoints switched off by the operator answer 404, as if none existed. */
export function requireAnonymousEnabled(deps: Pick<AnonymousDeps, "config">): void {
  if (deps.config.anonymous_endpoints === "off") throw endpointErrors.notFound();
}

/**
 * Creates an endpoint without an organization (decisions.md §6): slug `anon-<suffix>`, expiry in
 * 7 days, and a random token returned once; only its SHA-256 is kept. Refused (404) when the
 * operator turned anonymous endpoints off, and (503) once the instance holds as many live ones
 * as it allows (counted with the insert, as one unit).
 */
export async function createAnonymousEndpoint(deps: AnonymousDeps): Promise<{
  endpoint: Endpoint;
  token: string;
}> {
  requireAnonymousEnabled(deps);
  const now = deps.clock.now();
  const token = deps.ids.base62(TOKEN_LENGTH);
  const draft: Endpoint = {
    id: deps.ids.uuid(),
    organizationId: null,
    name: ANONYMOUS_NAME,
    slug: "",
    status: "active",
    response: null,
    forwardUrl: null,
    verification: null,
    anonymousTokenHash: sha256(token),
    expiresAt: isoAt(now + ANONYMOUS_LIFETIME_MS),
    createdAt: isoAt(now),
    updatedAt: isoAt(now),
  };
  const cap = { anonymousAliveAt: isoAt(now), limit: deps.config.anonymous_max_endpoints };
  const endpoint = await insertWithSlug(draft, null, cap, deps, "anon");
  return { endpoint, token };
}

/**
 * The anonymous endpoint the token opens. Unknown id, another kind of endpoint, a missing or
 * wrong token and an expired endpoint all answer the same 404, so nothing is learnt by probing.
 */
export async function requireAnonymousEndpoint(
  access: AnonymousAccess,
  deps: AnonymousDeps,
): Promise<Endpoint> {
  requireAnonymousEnabled(deps);
  const endpoint = await deps.store.findById(access.id);
  const stored = endpoint?.anonymousTokenHash;
  if (!endpoint || endpoint.organizationId !== null || !stored || !endpoint.expiresAt) {
    throw endpointErrors.notFound();
  }
  const given = Buffer.from(sha256(access.token), "hex");
  const expected = Buffer.from(stored, "hex");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw endpointErrors.notFound();
  }
  if (Date.parse(endpoint.expiresAt) <= deps.clock.now()) throw endpointErrors.notFound();
  return endpoint;
}

/** The anonymous endpoint with its request count. */
export async function getAnonymousEndpoint(access: AnonymousAccess, deps: AnonymousDeps) {
  const endpoint = await requireAnonymousEndpoint(access, deps);
  const stats = (await deps.store.stats([endpoint.id])).get(endpoint.id);
  return {
    endpoint,
    requestCount: stats?.requestCount ?? 0,
    lastRequestAt: stats?.lastRequestAt ?? null,
  };
}
