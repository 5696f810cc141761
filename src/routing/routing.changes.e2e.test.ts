import { afterAll, beforeAll, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { testStore } from "../test-utils/test-store.ts";

let server: TestServer;
let owner: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, { plan: "team" });
});
afterAll(() => server.stop());

const ingestStatus = async (slug: string) => {
  const response = await fetch(`${server.url}/in/${slug}`, { method: "POST", body: '{"n":1}' });
  expect(response.status).toBe(200);
  const { event_id } = (await response.json()) as { event_id: string };
  const event = await callAs(server, owner, "GET", `/api/v1/events/${event_id}`);
  return event.body.data.status as string;
};

// SQLite only by nature: the bridge is paused behind the node's back, as another node's write
// would be; on PostgreSQL the nodes' plans are shown in ingest.service.postgres.test.ts.
test.skipIf(testStore() === "postgres")(
  "a routes.changed heard on the bus ends this node's cached route plans",
  async () => {
    const bridge = await callAs(server, owner, "POST", "/api/v1/bridges", {
      name: "Told",
      source: { name: "Told source", type: "webhook" },
      destinations: [{ name: "Sink", type: "http", url: "http://127.0.0.1:9/" }],
    });
    expect(bridge.status).toBe(201);
    const sourceId = bridge.body.data.source_id as string;
    const slug = (await callAs(server, owner, "GET", `/api/v1/sources/${sourceId}`)).body.data
      .slug as string;
    expect(await ingestStatus(slug)).not.toBe("paused");
    server.deps.db.sqlite.run("UPDATE bridges SET status = 'paused' WHERE id = ?", [
      bridge.body.data.id,
    ]);
    // The plan is cached: the write nobody told this node about is not seen yet.
    expect(await ingestStatus(slug)).not.toBe("paused");
    server.deps.bus.publish("routes.changed", {});
    expect(await ingestStatus(slug)).toBe("paused");
  },
);
