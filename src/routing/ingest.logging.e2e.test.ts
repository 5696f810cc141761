import { afterEach, expect, test } from "bun:test";
import { signUp } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { createManualScheduler } from "../test-utils/manual-scheduler.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

let server: TestServer;
afterEach(() => server?.stop());

const logs = () => server.logs.map((line) => JSON.parse(line));

test("ingests are summarised per source each minute, the first refusal warned at once, no line per request", async () => {
  const scheduler = createManualScheduler();
  server = await startTestServer({ scheduler, config: { max_body_bytes: 64 } });
  const owner = await signUp(server, { plan: "team" });
  const created = await callAs(server, owner, "POST", "/api/v1/sources", {
    name: "Shop",
    deduplication_config: { body_path: "body.id" },
  });
  const { id, slug } = created.body.data;
  const send = (path: string, body: string) =>
    server.request(path, { method: "POST", headers: { "content-type": "application/json" }, body });

  const statuses = [
    (await send(`/in/${slug}`, '{"id":1}')).status,
    (await send(`/in/${slug}/orders?x=1`, '{"id":2}')).status,
    (await send(`/api/v1/sources/${id}/ingest`, '{"id":3}')).status,
    (await send(`/in/${slug}`, '{"id":1}')).status, // a duplicate
    (await send(`/in/${slug}`, JSON.stringify({ id: 4, pad: "x".repeat(64) }))).status,
    (await send(`/api/v1/sources/${id}/ingest`, JSON.stringify({ pad: "y".repeat(64) }))).status,
    (await send("/in/no-such-source", "{}")).status,
  ];
  expect(statuses).toEqual([200, 200, 200, 200, 413, 413, 404]);

  const warnings = logs().filter((l) => l.msg === "ingest refused");
  expect(warnings).toEqual([
    expect.objectContaining({
      level: "warn",
      scope: "ingest",
      source_id: id,
      slug,
      status: 413,
      error: "payload_too_large",
    }),
  ]);
  // Like a capture URL, the ingest URL by id gets no access log line of its own.
  const perRequest = logs().filter((l) => l.msg === "request" && /ingest/.test(l.route));
  expect(perRequest).toEqual([]);

  await scheduler.run("routing.ingest-summary");
  expect(logs().filter((l) => l.msg === "ingests")).toEqual([
    expect.objectContaining({
      level: "info",
      scope: "ingest",
      source_id: id,
      slug,
      accepted: 3,
      duplicates: 1,
      refused: { payload_too_large: 2 },
    }),
  ]);
  // Never a payload in the log.
  expect(server.logs.join("\n")).not.toContain("xxxx");

  // A quiet minute says nothing; a new interval warns again at its first refusal.
  await scheduler.run("routing.ingest-summary");
  expect(logs().filter((l) => l.msg === "ingests")).toHaveLength(1);
  await send(`/in/${slug}`, JSON.stringify({ pad: "z".repeat(64) }));
  expect(logs().filter((l) => l.msg === "ingest refused")).toHaveLength(2);
});
