import { expect } from "bun:test";
import type { TestAccount } from "./accounts.ts";
import { callAs } from "./endpoints.ts";
import type { TestServer } from "./test-server.ts";

/**
 * Creates a bridge from `body` (expects 201); returns it as answered, loosely typed for
 * assertions, with its source's ingest URL.
 */
export async function createBridge(
  server: TestServer,
  account: Pick<TestAccount, "headers">,
  body: Record<string, unknown>,
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect the answered JSON as received.
): Promise<{ bridge: any; ingestUrl: string }> {
  const created = await callAs(server, account, "POST", "/api/v1/bridges", body);
  expect(created.status).toBe(201);
  const source = await callAs(
    server,
    account,
    "GET",
    `/api/v1/sources/${created.body.data.source_id}`,
  );
  return { bridge: created.body.data, ingestUrl: source.body.data.ingest_url as string };
}
