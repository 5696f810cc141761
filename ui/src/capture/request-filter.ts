import type { RequestRow } from "../lib/types.ts";

export interface RequestFilter {
  /** "" for every method. */
  method: string;
  /** Text looked for in path, query, headers and body (on the server: the whole history). */
  text: string;
  /** `datetime-local` values in the browser's zone ("" when unset): from (inclusive), to (exclusive). */
  since: string;
  until: string;
}

export const EMPTY_FILTER: RequestFilter = { method: "", text: "", since: "", until: "" };

/** Whether the filter narrows anything (then the list comes from the server's search). */
export function isFilterActive(filter: RequestFilter): boolean {
  return Boolean(filter.method || filter.text.trim() || filter.since || filter.until);
}

/** A `datetime-local` value as the ISO instant the API takes; null when empty or unreadable. */
export function localToIso(value: string): string | null {
  if (!value) return null;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? null : at.toISOString();
}

/** The query parameters of the API's request list for this filter (decisions.md §14). */
export function filterParams(filter: RequestFilter): URLSearchParams {
  const params = new URLSearchParams();
  if (filter.text.trim()) params.set("q", filter.text.trim());
  if (filter.method) params.set("method", filter.method);
  const since = localToIso(filter.since);
  const until = localToIso(filter.until);
  if (since) params.set("since", since);
  if (until) params.set("until", until);
  return params;
}

/** Whether one loaded request matches the filter (used for requests that arrive live). */
export function matchesFilter(request: RequestRow, filter: RequestFilter): boolean {
  if (filter.method && request.method.toUpperCase() !== filter.method.toUpperCase()) return false;
  const since = localToIso(filter.since);
  const until = localToIso(filter.until);
  if (since && request.created_at < since) return false;
  if (until && request.created_at >= until) return false;
  const needle = filter.text.trim().toLowerCase();
  if (!needle) return true;
  const haystacks = [
    request.path,
    request.query_string,
    request.body_encoding === "base64" ? "" : request.body,
  ];
  for (const [name, value] of Object.entries(request.headers)) haystacks.push(`${name}: ${value}`);
  return haystacks.some((text) => text?.toLowerCase().includes(needle));
}

/** The loaded requests that match, in their order. */
export function filterRequests(requests: RequestRow[], filter: RequestFilter): RequestRow[] {
  if (!isFilterActive(filter)) return requests;
  return requests.filter((request) => matchesFilter(request, filter));
}

/** Methods worth offering in the method menu: the common ones and any the list holds. */
export function methodsOf(requests: RequestRow[]): string[] {
  const common = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];
  return [...new Set([...common, ...requests.map((r) => r.method.toUpperCase())])].sort();
}

/** The filter as the inspector's URL holds it, under the API's names (`q`, `method`, …). */
export function filterFromSearch(search: string): RequestFilter {
  const params = new URLSearchParams(search);
  return {
    method: params.get("method") ?? "",
    text: params.get("q") ?? "",
    since: params.get("since") ?? "",
    until: params.get("until") ?? "",
  };
}

/** The inspector's address for a filter and a selected request; empty values left out. */
export function inspectorUrl(path: string, filter: RequestFilter, requestId?: string): string {
  const params = new URLSearchParams();
  if (filter.method) params.set("method", filter.method);
  if (filter.text) params.set("q", filter.text);
  if (filter.since) params.set("since", filter.since);
  if (filter.until) params.set("until", filter.until);
  if (requestId) params.set("request", requestId);
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}
