import type { StoredVerification } from "../verification/verification.settings.ts";
import type {
  CustomResponse,
  DrainingEndpoint,
  Endpoint,
  EndpointRefusals,
  EndpointStatus,
} from "./endpoints.model.ts";

/** What can change on an existing endpoint; `undefined` leaves a field as it is. */
export interface EndpointChanges {
  name?: string;
  status?: EndpointStatus;
  /** null removes the custom response. */
  response?: CustomResponse | null;
  /** null removes the forward target. */
  forwardUrl?: string | null;
  /** null removes the signature check. */
  verification?: StoredVerification | null;
  updatedAt: string;
}

/** How many requests an endpoint holds and when the newest arrived. */
export interface EndpointStats {
  requestCount: number;
  lastRequestAt: string | null;
  refusals: EndpointRefusals;
}

/** How many endpoints may exist when a new one is inserted, counted in the same unit. */
export type EndpointCap =
  /** The organization's live endpoints (its plan's limit). */
  | { organizationId: string; limit: number }
  /** Anonymous endpoints not yet expired at `aliveAt` (the instance-wide limit). */
  | { anonymousAliveAt: string; limit: number };

/** An endpoint to insert, and the slugs to try for it in turn. */
export interface NewEndpoint {
  /** Its `slug` is replaced by each attempt's. */
  endpoint: Endpoint;
  /**
   * The slug of attempt 0, 1, …; null when there is no attempt left. Called only while the
   * previous slug was taken, so a generated slug draws randomness only when it is needed.
   */
  slugFor(attempt: number): string | null;
  /** Checked before the first attempt; null: no limit. */
  cap: EndpointCap | null;
}

export type InsertOutcome =
  | { inserted: Endpoint }
  | { refused: "limit_reached" }
  /** Every slug offered belonged to another endpoint (of any organization, or anonymous). */
  | { refused: "slug_taken" };

/**
 * The storage of the endpoints room (SQLite: `endpoints.sqlite.ts`, PostgreSQL:
 * `endpoints.postgres.ts`). Every organization-facing read and write is scoped to the
 * organization; a deleted endpoint is gone for every method at once. Each method is one unit.
 */
export interface EndpointsStore {
  /** The organization's endpoint with this id; null when it is unknown or another organization's. */
  findInOrganization(id: string, organizationId: string): Promise<Endpoint | null>;
  /** Any endpoint by id, anonymous ones included (not for organization-facing reads). */
  findById(id: string): Promise<Endpoint | null>;
  /** The endpoint that owns a slug (slugs are global: organizations and anonymous alike). */
  findBySlug(slug: string): Promise<Endpoint | null>;
  /** The organization's endpoints, newest first. */
  listForOrganization(organizationId: string): Promise<Endpoint[]>;
  /** Counts against the cap and inserts under the first free slug, atomically. */
  insert(draft: NewEndpoint): Promise<InsertOutcome>;
  /** Applies changes to the organization's endpoint; null when there is none. */
  update(id: string, organizationId: string, changes: EndpointChanges): Promise<Endpoint | null>;
  /**
   * Deletes the organization's endpoint for every reader and sender at once (its slug is free
   * again); its requests, and the row itself, are drained afterwards. False when there is none.
   */
  delete(id: string, organizationId: string, nowIso: string): Promise<boolean>;
  /** Ids of anonymous endpoints whose `expires_at` is at or before `nowIso`, soonest first. */
  listExpiredAnonymous(nowIso: string, limit: number): Promise<string[]>;
  /** Deletes an anonymous endpoint as `delete` does. False when there is no such live one. */
  deleteAnonymous(id: string, nowIso: string): Promise<boolean>;
  /**
   * Empties an endpoint for every reader at once: its requests captured until now are hidden
   * (and drained afterwards), its counter is 0. `freshId` is an id made now (UUIDv7).
   */
  clearRequests(id: string, freshId: string, nowIso: string): Promise<boolean>;
  /** Endpoints with hidden requests left to drain, at most `limit`, in id order. */
  listDraining(limit: number): Promise<DrainingEndpoint[]>;
  /** Request counts, newest capture times and refusals of the endpoints given. */
  stats(endpointIds: string[]): Promise<Map<string, EndpointStats>>;
}
