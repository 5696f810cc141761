import type { DrainingEndpoint } from "../endpoints/endpoints.model.ts";
import type { CapturedRequest, CaptureEndpoint } from "./capture.model.ts";
import type { RefusalDelta } from "./capture.tally.ts";
import type { RequestFilter } from "./request-filter.model.ts";
import type { SweptEndpoint } from "./retention.repo.ts";

/**
 * The capture room's storage, whichever database holds it (capture.sqlite.ts over the SQLite
 * repos, capture.postgres.ts over PostgreSQL). Every method is a whole unit: what must be atomic
 * runs in its own transaction inside the implementation. Reads of stored requests take an
 * endpoint the caller already opened, and never return requests a delete or an empty hid.
 *
 * The SQLite capture hot path (admission by slug and the group commit) does not go through this
 * interface: it keeps its synchronous repo, so a capture allocates no promise for storage.
 */
export interface CaptureStore {
  /** The live endpoint owning `slug` with its organization's plan (anonymous: free); null when there is none. */
  findEndpoint(slug: string): Promise<CaptureEndpoint | null>;
  /** Stored requests of one endpoint, from its counter (the anonymous cap). */
  countStored(endpointId: string): Promise<number>;
  /** Body bytes stored by every live anonymous endpoint, hidden requests excluded. */
  anonymousStoredBytes(): Promise<number>;
  /** The status a stored request was answered with, when an action changed it after the commit. */
  setAnsweredStatus(requestId: string, status: number): Promise<void>;
  /** Adds refusal counts to the endpoints' counters, in one transaction; a deleted endpoint is skipped. */
  addRefusals(deltas: readonly RefusalDelta[]): Promise<void>;

  /** Requests stored after `afterRequestId` (null: from the oldest), oldest first; bodies are previews. */
  listAfter(
    endpointId: string,
    afterRequestId: string | null,
    limit: number,
  ): Promise<CapturedRequest[]>;
  /** One page of the endpoint's requests, newest first; bodies are previews. */
  listPage(endpointId: string, offset: number, limit: number): Promise<CapturedRequest[]>;
  /** How many requests the endpoint shows (its counter); 0 once it is deleted. */
  count(endpointId: string): Promise<number>;
  /** One page of the endpoint's requests that pass `filter`, newest first; bodies whole. */
  listMatching(
    endpointId: string,
    filter: RequestFilter,
    offset: number,
    limit: number,
  ): Promise<CapturedRequest[]>;
  /** How many of the endpoint's requests pass `filter`. */
  countMatching(endpointId: string, filter: RequestFilter): Promise<number>;
  /** The endpoint's request with this id; null when the id belongs to no visible request of it. */
  find(endpointId: string, requestId: string): Promise<CapturedRequest | null>;
  /** Stores one request and counts it on its endpoint (fixtures and tools; capture has its writer). */
  insert(request: CapturedRequest): Promise<void>;

  /** Live endpoints after `afterId` in id order, `limit` at a time, with their plans (retention). */
  endpointsAfter(afterId: string, limit: number): Promise<SweptEndpoint[]>;
  /**
   * Deletes, among the endpoint's `limit` oldest requests, those created before `cutoffIso`, with
   * their forward deliveries, and takes the visible ones off its counter; returns how many went.
   */
  deleteRequestsBefore(endpointId: string, cutoffIso: string, limit: number): Promise<number>;
  /**
   * Deletes up to `limit` of the endpoint's hidden requests (all when `throughId` is null, else
   * those at or below it) with their forward deliveries; when fewer than `limit` were left, the
   * same transaction ends the endpoint's drain. Says how many went and whether it finished.
   */
  drainBatch(
    endpoint: DrainingEndpoint,
    limit: number,
  ): Promise<{ deleted: number; finished: boolean }>;
}
