import { afterAll, beforeAll, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { createBridge } from "../test-utils/bridges.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

const EVENTS = 150;
const databases = usePgDatabases();
let server: TestServer;
let owner: TestAccount;
let sink: HttpSink;

beforeAll(async () => {
  sink = startHttpSink();
  const db = await databases.create();
  // Fewer connections than attempts finishing at once: each attempt's commit must finish with
  // the one connection its transaction holds.
  server = await startTestServer({ config: { database_url: db.url, database_pool_size: 2 } });
  owner = await signUp(server, { plan: "team" });
});

afterAll(async () => {
  await server?.stop();
  sink?.stop();
});

test("on PostgreSQL with a small pool, a burst of first deliveries to a new destination all commit (no wait on a connection inside an attempt's transaction)", async () => {
  const { ingestUrl } = await createBridge(server, owner, {
    name: "burst",
    source: { name: "burst", type: "webhook" },
    destinations: [{ name: "sink", type: "http", url: sink.url }],
  });
  const answers = await Promise.all(
    Array.from({ length: EVENTS }, (_, n) =>
      fetch(ingestUrl, { method: "POST", body: JSON.stringify({ n }) }).then((r) => r.status),
    ),
  );
  expect(answers.every((status) => status === 200)).toBe(true);
  await pollUntil(() => sink.requests.length >= EVENTS, {
    timeoutMs: 20_000,
    what: `${EVENTS} deliveries`,
  });
  expect(sink.requests).toHaveLength(EVENTS);
}, 30_000);
