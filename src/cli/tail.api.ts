import { fail } from "./cli.common.ts";

/** The endpoint being tailed, as the REST API shows it. */
export interface TailEndpoint {
  id: string;
  slug: string;
  webhook_url: string;
}

/** One stored request as `GET /api/v1/debug-endpoints/{id}/requests/{request_id}` shows it. */
export interface StoredRequest {
  id: string;
  method: string;
  path: string;
  query_string: string;
  headers: Record<string, string>;
  raw_headers: [string, string][];
  body: string;
  body_encoding: "utf8" | "base64";
  size: number;
  status: string;
  created_at: string;
}

/** The REST calls `weir tail` makes, with the token of the command line. */
export function createTailApi(server: string, token: string, fetchImpl: typeof fetch = fetch) {
  const base = server.replace(/\/+$/, "");
  const headers = { authorization: `Bearer ${token}`, accept: "application/json" };

  async function get(path: string): Promise<Response> {
    try {
      return await fetchImpl(`${base}${path}`, { headers, signal: AbortSignal.timeout(30_000) });
    } catch (error) {
      return fail(`${base} did not answer: ${(error as Error).message}`);
    }
  }

  /** Fails the command with a readable line when the token is refused. */
  function refuseBadToken(response: Response): void {
    if (response.status === 401 || response.status === 403) {
      fail(
        `${base} refused the token (${response.status}); pass an API key or login token with --token`,
      );
    }
  }

  return {
    base,
    token,
    /** The endpoint named by id or slug, among those the token's organization owns. */
    async resolveEndpoint(idOrSlug: string): Promise<TailEndpoint> {
      const byId = await get(`/api/v1/endpoints/${encodeURIComponent(idOrSlug)}`);
      refuseBadToken(byId);
      if (byId.ok) return ((await byId.json()) as { data: TailEndpoint }).data;
      const list = await get("/api/v1/endpoints");
      refuseBadToken(list);
      if (!list.ok) fail(`listing endpoints failed with status ${list.status}`);
      const { data } = (await list.json()) as { data: TailEndpoint[] };
      const found = data.find((endpoint) => endpoint.slug === idOrSlug);
      return (
        found ?? fail(`no endpoint "${idOrSlug}" (neither an id nor a slug of your organization)`)
      );
    },
    /** The whole stored request (the pushed body may be cut); null when it is no longer stored. */
    async fetchRequest(endpointId: string, requestId: string): Promise<StoredRequest | null> {
      const path = `/api/v1/debug-endpoints/${endpointId}/requests/${requestId}`;
      const response = await get(path);
      refuseBadToken(response);
      if (response.status === 404) return null;
      if (!response.ok) throw new Error(`GET ${path} answered ${response.status}`);
      return (await response.json()) as StoredRequest;
    },
    /** True while the token is still accepted (a socket refusal may mean it was revoked). */
    async tokenAccepted(endpointId: string): Promise<boolean> {
      const response = await fetchImpl(`${base}/api/v1/endpoints/${endpointId}`, { headers }).catch(
        () => null,
      );
      return !(response && (response.status === 401 || response.status === 403));
    },
  };
}

export type TailApi = ReturnType<typeof createTailApi>;

/** The bytes of a stored request's body. */
export function bodyBytes(request: StoredRequest): Uint8Array {
  return request.body_encoding === "base64"
    ? new Uint8Array(Buffer.from(request.body, "base64"))
    : new TextEncoder().encode(request.body);
}
