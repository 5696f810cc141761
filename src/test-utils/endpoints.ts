import { expect } from "bun:test";
import type { TestAccount } from "./accounts.ts";
import { type ApiAnswer, apiCall } from "./api-call.ts";
import type { TestServer } from "./test-server.ts";

/** An endpoint as the `debug-endpoints` family returns it, loosely typed for assertions. */
export interface CreatedEndpoint {
  id: string;
  slug: string;
  webhook_url: string;
  [field: string]: unknown;
}

/** Creates an endpoint through the `debug-endpoints` family and expects 201. */
export async function createDebugEndpoint(
  server: TestServer,
  account: Pick<TestAccount, "headers">,
  fields: Record<string, unknown> = {},
): Promise<CreatedEndpoint> {
  const answer = await apiCall(server, "POST", "/api/v1/debug-endpoints", {
    headers: account.headers,
    body: { debug_endpoint: { name: "Hooks", ...fields } },
  });
  expect(answer.status).toBe(201);
  return answer.body;
}

/** Sends one request to a capture URL (no credentials) and expects it stored; returns its id. */
export async function captureAt(
  server: TestServer,
  path: string,
  init: RequestInit = { method: "POST", body: '{"hello":"world"}' },
): Promise<string> {
  const response = await fetch(`${server.url}${path}`, init);
  const body = (await response.json()) as { request_id?: string };
  expect(response.status).toBe(200);
  return body.request_id as string;
}

/** `apiCall` with an account's credentials. */
export function callAs(
  server: TestServer,
  account: Pick<TestAccount, "headers"> | null,
  method: string,
  path: string,
  body?: unknown,
): Promise<ApiAnswer> {
  return apiCall(server, method, path, { headers: account?.headers ?? {}, body });
}

/**
 * A new endpoint whose chain is `actions`, in order, each expected to be created (201). An
 * action without a name is named after its type.
 */
export async function createEndpointWithActions(
  server: TestServer,
  account: Pick<TestAccount, "headers">,
  actions: Record<string, unknown>[],
): Promise<CreatedEndpoint> {
  const endpoint = await createDebugEndpoint(server, account);
  for (const action of actions) {
    const made = await callAs(server, account, "POST", `/api/v1/endpoints/${endpoint.id}/actions`, {
      name: action.type,
      ...action,
    });
    expect(made.status).toBe(201);
  }
  return endpoint;
}
