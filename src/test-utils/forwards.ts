import { expect } from "bun:test";
import type { TestAccount } from "./accounts.ts";
import { type CreatedEndpoint, callAs } from "./endpoints.ts";
import { pollUntil } from "./poll.ts";
import type { TestServer } from "./test-server.ts";

/** A forward record as listed, loosely typed: tests assert on its shape with expect(). */
// biome-ignore lint/suspicious/noExplicitAny: test assertions inspect arbitrary JSON shapes.
export type ListedForward = any;

/** The forward tries recorded for a request, oldest first (through the API). */
export async function forwardsOf(
  server: TestServer,
  account: Pick<TestAccount, "headers">,
  endpoint: CreatedEndpoint,
  requestId: string,
): Promise<ListedForward[]> {
  const url = `/api/v1/endpoints/${endpoint.id}/requests/${requestId}/forwards?page_size=100`;
  const answer = await callAs(server, account, "GET", url);
  expect(answer.status).toBe(200);
  return [...answer.body.data].reverse();
}

/** Polls until the request has exactly `count` tries recorded; returns them oldest first. */
export function triesOf(
  server: TestServer,
  account: Pick<TestAccount, "headers">,
  endpoint: CreatedEndpoint,
  requestId: string,
  count: number,
): Promise<ListedForward[]> {
  return pollUntil(
    async () => {
      const tries = await forwardsOf(server, account, endpoint, requestId);
      return tries.length === count && tries;
    },
    { what: `${count} forward tries` },
  );
}
