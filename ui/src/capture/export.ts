import { queryPairs } from "../kit/format.ts";
import type { CapturedRequest } from "../lib/types.ts";
import { requestUrl } from "./curl.ts";

/** The requests as the API returns them, in a file that says what it holds. */
export function toJsonExport(
  requests: CapturedRequest[],
  endpoint: { id: string; name: string; webhook_url: string },
  exportedAt: string,
): string {
  return JSON.stringify(
    {
      endpoint: { id: endpoint.id, name: endpoint.name, webhook_url: endpoint.webhook_url },
      exported_at: exportedAt,
      count: requests.length,
      requests,
    },
    null,
    2,
  );
}

/**
 * HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): one entry per captured request, as
 * the sender sent it to the capture URL, oldest first; the response is Weir's answer as far as it
 * is known (its status). A body that is not UTF-8 stays base64 in `postData.text`, marked with the
 * custom field `_encoding` (HAR allows fields starting with `_`).
 */
export function toHar(
  requests: CapturedRequest[],
  endpoint: { webhook_url: string },
  version: string,
): string {
  const entries = [...requests]
    .sort((a, b) => oldestFirst(a, b))
    .map((request) => harEntry(request, endpoint.webhook_url));
  return JSON.stringify(
    { log: { version: "1.2", creator: { name: "Weir", version }, entries } },
    null,
    2,
  );
}

/** By time, then by id (UUIDv7: time-ordered within one millisecond too). */
function oldestFirst(a: CapturedRequest, b: CapturedRequest): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function harEntry(request: CapturedRequest, webhookUrl: string) {
  const status = Number(request.status) || 0;
  const hasBody = request.size > 0 || request.body !== "";
  return {
    startedDateTime: request.created_at,
    time: 0,
    request: {
      method: request.method,
      url: requestUrl(request, webhookUrl),
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: request.raw_headers.map(([name, value]) => ({ name, value })),
      queryString: queryPairs(request.query_string).map(([name, value]) => ({ name, value })),
      ...(hasBody
        ? {
            postData: {
              mimeType: request.content_type ?? "",
              text: request.body,
              ...(request.body_encoding === "base64" ? { _encoding: "base64" } : {}),
            },
          }
        : {}),
      headersSize: -1,
      bodySize: request.size,
    },
    response: {
      status,
      statusText: "",
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: [],
      content: { size: 0, mimeType: "" },
      redirectURL: "",
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: 0, receive: 0 },
    _weir_request_id: request.id,
    ...(request.remote_ip ? { _client_ip: request.remote_ip } : {}),
  };
}
