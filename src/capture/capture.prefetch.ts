import type { CaptureEndpoint } from "./capture.model.ts";
import type { CaptureRepo } from "./capture.repo.ts";
import type { CaptureStore } from "./capture.store.ts";

type SecretLookup = (name: string) => string | undefined;

export interface PrefetchDeps {
  store: Pick<CaptureStore, "findEndpoint" | "countStored" | "setAnsweredStatus">;
  /** The organization's secrets, for an endpoint whose signature check may name one. */
  resolveSecrets?(organizationId: string): Promise<SecretLookup>;
  onError(error: unknown): void;
}

/**
 * Capture on PostgreSQL. The capture service decides synchronously (the SQLite hot path reads
 * its repo without a promise), so here everything a capture's admission and signature check
 * read is fetched first: the endpoint by slug, an anonymous endpoint's stored count and a
 * verifying endpoint's secrets. The service then runs unchanged over `repo`, which answers
 * from what was fetched for the captures in flight.
 */
export function createCapturePrefetch(deps: PrefetchDeps) {
  const endpoints = new Held<string, CaptureEndpoint | null>();
  const counts = new Held<string, number>();
  const secrets = new Held<string, SecretLookup>();

  /** Fetches what admitting `slug` reads, runs `handle` with it in reach, then lets it go. */
  async function around<T>(slug: string, handle: () => Promise<T>): Promise<T> {
    const endpoint = await deps.store.findEndpoint(slug);
    const anonymous = endpoint !== null && endpoint.organizationId === null;
    const count = anonymous ? await deps.store.countStored(endpoint.id) : null;
    const organizationId = endpoint?.verification ? endpoint.organizationId : null;
    const lookup =
      organizationId !== null && deps.resolveSecrets
        ? await deps.resolveSecrets(organizationId)
        : null;
    endpoints.hold(slug, endpoint);
    if (endpoint && count !== null) counts.hold(endpoint.id, count);
    if (organizationId !== null && lookup) secrets.hold(organizationId, lookup);
    try {
      return await handle();
    } finally {
      endpoints.release(slug);
      if (endpoint && count !== null) counts.release(endpoint.id);
      if (organizationId !== null && lookup) secrets.release(organizationId);
    }
  }

  const repo: Pick<CaptureRepo, "findEndpoint" | "countRequests" | "setAnsweredStatus"> = {
    findEndpoint: (slug) => endpoints.get(slug) ?? null,
    countRequests: (endpointId) => counts.get(endpointId) ?? 0,
    setAnsweredStatus(requestId, status) {
      deps.store.setAnsweredStatus(requestId, status).catch(deps.onError);
    },
  };

  return {
    around,
    repo,
    /** A verifying endpoint's secrets, fetched before its capture was admitted. */
    resolveSecretsNow: (organizationId: string): SecretLookup =>
      secrets.get(organizationId) ?? (() => undefined),
  };
}

export type CapturePrefetch = ReturnType<typeof createCapturePrefetch>;

/**
 * Values held while at least one capture needs them; the newest fetch wins, so concurrent
 * captures of one endpoint see the freshest row any of them read.
 */
class Held<K, V> {
  private readonly entries = new Map<K, { value: V; holders: number }>();

  hold(key: K, value: V): void {
    const entry = this.entries.get(key);
    if (entry) {
      entry.value = value;
      entry.holders += 1;
    } else this.entries.set(key, { value, holders: 1 });
  }

  release(key: K): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    entry.holders -= 1;
    if (entry.holders <= 0) this.entries.delete(key);
  }

  get(key: K): V | undefined {
    return this.entries.get(key)?.value;
  }
}
