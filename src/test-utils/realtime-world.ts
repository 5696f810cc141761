import { expect } from "bun:test";
import { signUp, type TestAccount } from "./accounts.ts";
import { apiCall } from "./api-call.ts";
import { startTestServer, type TestServer, type TestServerOptions } from "./test-server.ts";

/** An endpoint as the create call answers it. */
export interface TestEndpoint {
  id: string;
  slug: string;
}

/** A test server with a Team organization that owns one endpoint. */
export interface RealtimeWorld {
  server: TestServer;
  owner: TestAccount;
  endpoint: TestEndpoint;
}

/** Starts a server (capture rate limit off: tests send bursts) with one organization and endpoint. */
export async function startWorld(options: TestServerOptions = {}): Promise<RealtimeWorld> {
  const server = await startTestServer({
    ...options,
    config: { capture_rate_limit: "off", ...options.config },
  });
  const owner = await signUp(server);
  const endpoint = await createEndpoint(server, owner);
  return { server, owner, endpoint };
}

/** Creates an endpoint through the REST API. */
export async function createEndpoint(
  server: TestServer,
  account: TestAccount,
): Promise<TestEndpoint> {
  const created = await apiCall(server, "POST", "/api/v1/endpoints", {
    headers: account.headers,
    body: { debug_endpoint: { name: "live hooks" } },
  });
  expect(created.status).toBe(201);
  return created.body.data as TestEndpoint;
}

/** Sends one request to the endpoint's capture URL; returns the stored request's id. */
export async function capture(
  server: TestServer,
  slug: string,
  init: RequestInit & { subPath?: string } = {},
): Promise<string> {
  const { subPath = "", ...rest } = init;
  const response = await fetch(`${server.url}/w/${slug}${subPath}`, {
    method: "POST",
    body: '{"hello":"world"}',
    headers: { "content-type": "application/json" },
    ...rest,
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { request_id: string }).request_id;
}

/** The id of the organization's API key named `name` (listed with the owner's login token). */
export async function apiKeyId(
  server: TestServer,
  owner: TestAccount,
  name: string,
): Promise<string> {
  const listed = await apiCall(
    server,
    "GET",
    `/api/v1/organizations/${owner.organizationId}/api-keys`,
    {
      headers: owner.headers,
    },
  );
  const key = (listed.body as { id: string; name: string }[]).find((k) => k.name === name);
  if (!key) throw new Error(`no API key named ${name}`);
  return key.id;
}
