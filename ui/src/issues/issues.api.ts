/** Every call the issues screens make, and their shapes (the server presenters' own types). */
import type { presentIssue, presentIssueDetail } from "../../../src/issues/issues.present.ts";
import type { Api } from "../lib/api.ts";

export type Issue = ReturnType<typeof presentIssue>;
export type IssueDetail = ReturnType<typeof presentIssueDetail>;
export type IssueStatus = Issue["status"];
export interface IssuePage {
  items: Issue[];
  pagination: {
    current_page: number;
    page_size: number;
    total_pages: number;
    total_records: number;
  };
}
export interface BridgeNames {
  id: string;
  name: string;
  destinations: { id: string; name: string; type: string }[];
}

export const PAGE_SIZE = 25;

export function listIssues(
  api: Api,
  query: { status: string; bridge_id: string; page: number; page_size?: number },
  signal?: AbortSignal,
): Promise<IssuePage> {
  const params = new URLSearchParams({
    page: String(query.page),
    page_size: String(query.page_size ?? PAGE_SIZE),
  });
  if (query.status) params.set("status", query.status);
  if (query.bridge_id) params.set("bridge_id", query.bridge_id);
  return api.get(`/api/v1/issues?${params}`, signal);
}

/** Issues keep their own shapes: get and PATCH answer the bare issue. */
export const getIssue = (api: Api, id: string, signal?: AbortSignal) =>
  api.get<IssueDetail>(`/api/v1/issues/${id}`, signal);

export const setIssueStatus = (api: Api, id: string, status: IssueStatus) =>
  api.patch<Issue>(`/api/v1/issues/${id}`, { status });

/** Bridge and destination names for the list: one call, never one per row. */
export const listBridgeNames = (api: Api, signal?: AbortSignal) =>
  api.get<{ data: BridgeNames[] }>("/api/v1/bridges", signal).then((r) => r.data);
