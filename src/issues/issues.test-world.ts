import { expect } from "bun:test";
import type { TestAccount } from "../test-utils/accounts.ts";
import { createBridge } from "../test-utils/bridges.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { pollUntil } from "../test-utils/poll.ts";
import type { TestServer } from "../test-utils/test-server.ts";

/** An issue as the API lists it. */
export interface IssueView {
  id: string;
  bridge_id: string;
  destination_id: string;
  status: "open" | "work_in_progress" | "closed";
  error_type: string;
  error_code: string;
  error_message: string;
  occurrence_count: number;
  first_occurrence_at: string;
  last_occurrence_at: string;
  opened_at: string;
  resolved_at: string | null;
  last_success_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface Route {
  name: string;
  bridgeId: string;
  sourceId: string;
  ingestUrl: string;
  /** Destination ids, in the order given. */
  destinations: string[];
}

let routes = 0;

/** The id of a route's destination by position (the first by default). */
export function destinationOf(route: Route, index = 0): string {
  const id = route.destinations[index];
  if (!id) throw new Error(`the route has no destination ${index}`);
  return id;
}

/** Bridges, ingests and issue reads of one account, as the issues tests use them. */
export function createIssuesWorld(server: TestServer, account: TestAccount) {
  return {
    /** A new bridge with its own source; destinations fail at once (max_retries 0) unless told. */
    async route(destinations: Record<string, unknown>[]): Promise<Route> {
      routes += 1;
      const name = `route ${routes}`;
      const { bridge, ingestUrl } = await createBridge(server, account, {
        name,
        source: { name: `source ${routes}`, type: "webhook" },
        destinations: destinations.map((d) => ({ max_retries: 0, ...d })),
      });
      return {
        name,
        bridgeId: bridge.id,
        sourceId: bridge.source_id,
        ingestUrl,
        destinations: bridge.destinations.map((d: { id: string }) => d.id),
      };
    },
    /** Ingests one JSON body; returns the event id. */
    async ingest(route: Route, body: unknown): Promise<string> {
      const answer = await fetch(route.ingestUrl, { method: "POST", body: JSON.stringify(body) });
      expect(answer.status).toBe(200);
      return ((await answer.json()) as { event_id: string }).event_id;
    },
    /** The destination's issues, newest occurrence first. */
    async issuesOf(destinationId: string, extra = ""): Promise<IssueView[]> {
      const list = await callAs(
        server,
        account,
        "GET",
        `/api/v1/issues?destination_id=${destinationId}&page_size=100${extra}`,
      );
      expect(list.status).toBe(200);
      return list.body.items;
    },
    /** Polls until the destination has exactly one issue and it satisfies `ready`. */
    async issueWith(destinationId: string, ready: (issue: IssueView) => boolean) {
      return pollUntil(
        async () => {
          const items = await this.issuesOf(destinationId);
          return items.length === 1 && items[0] && ready(items[0]) ? items[0] : undefined;
        },
        { what: `the issue of destination ${destinationId}` },
      );
    },
    async patch(issueId: string, body: unknown) {
      return callAs(server, account, "PATCH", `/api/v1/issues/${issueId}`, body);
    },
  };
}

export type IssuesWorld = ReturnType<typeof createIssuesWorld>;
