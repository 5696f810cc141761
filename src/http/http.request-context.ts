import type { Ids } from "../shared/ids.ts";

/** What the HTTP layer tracks per request, outside Elysia's context so error paths see it too. */
export interface RequestMeta {
  id: string;
  startedAt: number;
}

const INCOMING_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A sane `x-request-id` from a proxy in front, else a new one. */
export function requestIdOf(request: Request, ids: Ids): string {
  const incoming = request.headers.get("x-request-id");
  return incoming && INCOMING_ID.test(incoming) ? incoming : ids.uuid();
}

/** Per-app table of in-flight requests; weakly held, so nothing leaks when a request is dropped. */
export function createRequestTracker(ids: Ids) {
  const metas = new WeakMap<Request, RequestMeta>();
  return {
    /** Starts tracking; keeps a sane `x-request-id` from a proxy in front, else makes one. */
    begin(request: Request): RequestMeta {
      const meta = { id: requestIdOf(request, ids), startedAt: performance.now() };
      metas.set(request, meta);
      return meta;
    },
    get(request: Request): RequestMeta {
      return metas.get(request) ?? this.begin(request);
    },
  };
}
