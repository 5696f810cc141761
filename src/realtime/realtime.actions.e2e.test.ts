import { afterAll, beforeAll, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs, captureAt, createEndpointWithActions } from "../test-utils/endpoints.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { connectSocket, subscribe } from "../test-utils/realtime-client.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

let server: TestServer;
let owner: TestAccount;

beforeAll(async () => {
  server = await startTestServer({ config: { capture_rate_limit: "off" } });
  owner = await signUp(server, { plan: "team" });
});
afterAll(async () => {
  await server.stop();
});

// biome-ignore lint/suspicious/noExplicitAny: tests inspect the pushed JSON as received.
type Pushed = any;

/** A joined channel recording both events in arrival order. */
async function watch(endpointId: string, since: string) {
  const socket = connectSocket(server.url, { token: await owner.createApiKey() });
  const joined = await subscribe(socket, endpointId, { since_request_id: since });
  expect(joined.reply.status).toBe("ok");
  const seen: string[] = [];
  const completed: Pushed[] = [];
  joined.channel.on("webhook_received", (payload: Pushed) => {
    seen.push(`webhook_received ${payload.request_id}`);
  });
  joined.channel.on("actions_completed", (payload: Pushed) => {
    seen.push(`actions_completed ${payload.request_id}`);
    completed.push(payload);
  });
  return { socket, seen, completed };
}

const runOf = (endpointId: string, requestId: string) =>
  pollUntil(async () => {
    const answer = await callAs(
      server,
      owner,
      "GET",
      `/api/v1/endpoints/${endpointId}/requests/${requestId}/actions`,
    );
    return answer.body.data?.length > 0 ? answer.body.data : undefined;
  });

test("a catch-up replays each request's action run after it, then runs finished later, once each", async () => {
  const endpoint = await createEndpointWithActions(server, owner, [
    { type: "store_variable", config: { name: "n", value: "$request.body.n$" } },
  ]);
  const path = `/w/${endpoint.slug}`;
  const capture = (n: number) => captureAt(server, path, { method: "POST", body: `{"n":${n}}` });
  const first = await capture(1);
  const second = await capture(2);
  const third = await capture(3);
  // Both runs were recorded before the socket joined: only the catch-up can tell it of them.
  const results = await runOf(endpoint.id, third);
  await runOf(endpoint.id, second);

  const { socket, seen, completed } = await watch(endpoint.id, first);
  await pollUntil(() => seen.length === 4, { what: "the replay" });
  expect(seen).toEqual([
    `webhook_received ${second}`,
    `actions_completed ${second}`,
    `webhook_received ${third}`,
    `actions_completed ${third}`,
  ]);
  expect(completed[1]).toEqual({ request_id: third, results });

  const fourth = await capture(4);
  await pollUntil(() => seen.length === 6, { what: "the live capture and its run" });
  expect(seen.slice(4)).toEqual([`webhook_received ${fourth}`, `actions_completed ${fourth}`]);
  socket.disconnect();
});
