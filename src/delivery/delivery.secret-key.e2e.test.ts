import { afterAll, beforeAll, expect, test } from "bun:test";
import { createSealer } from "../shared/sealed.ts";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { onStore } from "../test-utils/stored-rows.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

// What a changed WEIR_SECRET_KEY leaves behind: values sealed under another key.
const otherKey = new Uint8Array(32).fill(9);
const sink = startHttpSink();
let server: TestServer;
let owner: TestAccount;
beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server);
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

async function route(destination: Record<string, unknown>) {
  const bridge = await callAs(server, owner, "POST", "/api/v1/bridges", {
    name: `B ${Math.random()}`,
    source: { name: `S ${Math.random()}`, type: "webhook" },
    destinations: [{ name: "D", type: "http", url: `${sink.url}/in`, ...destination }],
  });
  expect(bridge.status).toBe(201);
  return {
    sourceId: bridge.body.data.source_id as string,
    destinationId: bridge.body.data.destinations[0].id as string,
  };
}

async function deliveryOf(sourceId: string) {
  const answer = await fetch(`${server.url}/api/v1/sources/${sourceId}/ingest`, {
    method: "POST",
    body: "{}",
  });
  const { event_id: id } = (await answer.json()) as { event_id: string };
  return pollUntil(
    async () => {
      const event = await callAs(server, owner, "GET", `/api/v1/events/${id}`);
      const [delivery] = event.body.data.deliveries;
      return delivery?.status === "failed" ? delivery : undefined;
    },
    { what: "the delivery to fail" },
  );
}

const UNREADABLE = {
  status: "failed",
  attempts: 1,
  error_type: "authentication_error",
  error_code: "secret_unreadable",
};

test("a signing secret sealed under another key fails the delivery once, with the reason", async () => {
  const { sourceId, destinationId } = await route({});
  const resealed = createSealer(otherKey, "destination-signing-secret").seal(
    "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    destinationId,
  );
  await onStore(
    server,
    "UPDATE destinations SET signing_secret = ? WHERE id = ?",
    resealed,
    destinationId,
  );
  expect(await deliveryOf(sourceId)).toMatchObject(UNREADABLE);
  expect(sink.requests).toEqual([]);
});

test("a {{NAME}} secret sealed under another key fails the delivery once, with the reason", async () => {
  expect(
    (await callAs(server, owner, "POST", "/api/v1/secrets", { name: "TOKEN", value: "t" })).status,
  ).toBe(201);
  const { sourceId } = await route({ headers: { authorization: "Bearer {{TOKEN}}" } });
  const resealed = createSealer(otherKey, "secrets").seal(
    "t",
    `secret:${owner.organizationId}:TOKEN`,
  );
  await onStore(server, "UPDATE secrets SET sealed_value = ? WHERE name = 'TOKEN'", resealed);
  expect(await deliveryOf(sourceId)).toMatchObject(UNREADABLE);
  expect(sink.requests).toEqual([]);
});
