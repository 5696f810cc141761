import type { RequestRow } from "./types.ts";

export interface RequestFilter {
  /** "" for every method. */
  method: string;
  /** Case-insensitive text looked for in path, query, body, header names and values, IP and id. */
  text: string;
}

/** Whether one request matches the filter. */
export function matchesFilter(request: RequestRow, filter: RequestFilter): boolean {
  if (filter.method && request.method.toUpperCase() !== filter.method.toUpperCase()) return false;
  const needle = filter.text.trim().toLowerCase();
  if (!needle) return true;
  const haystacks = [
    request.id,
    request.path,
    request.query_string,
    request.remote_ip ?? "",
    request.content_type ?? "",
    request.body_encoding === "base64" ? "" : request.body,
  ];
  for (const [name, value] of Object.entries(request.headers)) haystacks.push(`${name}: ${value}`);
  return haystacks.some((text) => text?.toLowerCase().includes(needle));
}

/** The loaded requests that match, in their order. */
export function filterRequests(requests: RequestRow[], filter: RequestFilter): RequestRow[] {
  if (!filter.method && !filter.text.trim()) return requests;
  return requests.filter((request) => matchesFilter(request, filter));
}

/** Methods present in the list (for the method filter), sorted. */
export function methodsOf(requests: RequestRow[]): string[] {
  return [...new Set(requests.map((r) => r.method.toUpperCase()))].sort();
}
