import { expect } from "bun:test";
import type { TestAccount } from "./accounts.ts";
import { callAs } from "./endpoints.ts";
import type { HttpSink, SinkRequest } from "./http-sink.ts";
import type { TestServer } from "./test-server.ts";

let rules = 0;

/**
 * Creates a rule named `<name> <n>` whose webhook channel posts to `sink` under `/alerts/<n>`
 * (n counts every rule made here, so each has its own path); expects 201.
 */
export async function webhookAlertRule(
  server: TestServer,
  account: TestAccount,
  sink: HttpSink,
  condition: unknown,
  name: string,
) {
  rules += 1;
  const path = `/alerts/${rules}`;
  const created = await callAs(server, account, "POST", "/api/v1/alert-rules", {
    name: `${name} ${rules}`,
    condition,
    channel: { type: "webhook", url: `${sink.url}${path}` },
  });
  expect(created.status).toBe(201);
  return { id: created.body.data.id as string, path };
}

/** The JSON documents `sink` received at `path`, oldest first. */
export const documentsAt = (sink: HttpSink, path: string) =>
  sink.requests
    .filter((r: SinkRequest) => r.path === path)
    .map((r) => JSON.parse(new TextDecoder().decode(r.body)));
