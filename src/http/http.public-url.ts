import { createProxyTrust } from "./http.client-ip.ts";

/** What the helper needs of the Bun server: the socket peer of a request. */
export interface PeerSource {
  requestIP(request: Request): { address: string } | null;
}

/**
 * The public base URL for one request (`https://hooks.example.com`, no trailing slash): every
 * URL Weir hands out (webhook_url, ingest and status URLs, the UI's copy buttons) starts with it.
 */
export type PublicBaseUrl = (request: Request, server?: PeerSource | null) => string;

// A host[:port] as it may appear in Host / X-Forwarded-Host: a name, IPv4 or [IPv6].
const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * `base_url` when it is set (it always wins); otherwise the request's own `Host` and scheme, or
 * the `X-Forwarded-Host`/`-Proto` of a trusted proxy (decisions.md §14). Headers from anyone
 * else are ignored, so a client cannot make Weir hand out someone else's URL. `settings` is read
 * at each call, so a server started on port 0 or a test may settle `base_url` later.
 */
export function createPublicBaseUrl(settings: {
  base_url: string;
  trusted_proxies: readonly string[];
}): PublicBaseUrl {
  const trusts = createProxyTrust(settings.trusted_proxies);
  return (request, server) => {
    if (settings.base_url !== "") return settings.base_url.replace(/\/+$/, "");
    const url = new URL(request.url);
    let host = validHost(request.headers.get("host")) ?? url.host;
    let scheme = url.protocol === "https:" ? "https" : "http";
    const peer = server?.requestIP(request)?.address;
    if (peer && trusts(peer)) {
      host = validHost(firstValue(request.headers.get("x-forwarded-host"))) ?? host;
      const proto = firstValue(request.headers.get("x-forwarded-proto"))?.toLowerCase();
      if (proto === "https" || proto === "http") scheme = proto;
    }
    return `${scheme}://${host}`;
  };
}

// Behind several proxies each one appends: the first value is what the client asked for.
function firstValue(header: string | null): string | undefined {
  return header?.split(",")[0]?.trim();
}

function validHost(value: string | null | undefined): string | undefined {
  return value && value.length <= 300 && HOST.test(value) ? value : undefined;
}
