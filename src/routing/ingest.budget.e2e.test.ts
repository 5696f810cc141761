import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { registerOperator, startWeirProcess } from "../test-utils/weir-process.ts";

const tempDir = useTempDirs("weir-ingest-budget-");
const running: Subprocess[] = [];
afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});

/** 495 `$regex` terms, none matching, against every element of `body.items`. */
const REGEX_TERMS = [
  { "body.items": { $or: Array.from({ length: 495 }, (_, i) => ({ $regex: `^zz${i}$` })) } },
];
/** ~1 MB: a 250,000-element array. */
const HUGE_ARRAY = JSON.stringify({ items: Array.from({ length: 250_000 }, () => "a") });

test("the worst ingest keeps /healthz answering and its event fails with the reason", async () => {
  // A process of its own: a held event loop must not hold the test's clock too.
  const weir = await startWeirProcess(tempDir(), {}, running);
  const auth = { authorization: `Bearer ${await registerOperator(weir.url)}` };
  const bridge = await fetch(`${weir.url}/api/v1/bridges`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({
      name: "Heavy",
      source: { name: "Heavy source", type: "webhook" },
      destinations: Array.from({ length: 4 }, (_, i) => ({
        name: `Heavy ${i}`,
        type: "http",
        url: "http://127.0.0.1:9/",
        filters: REGEX_TERMS,
      })),
    }),
  });
  expect(bridge.status).toBe(201);
  const { source_id: sourceId } = ((await bridge.json()) as { data: { source_id: string } }).data;
  const ingest = (body: string) =>
    fetch(`${weir.url}/api/v1/sources/${sourceId}/ingest`, { method: "POST", body });
  // A small one first: the routes are compiled once, so what follows measures filtering alone.
  expect((await ingest('{"items":[]}')).status).toBe(200);
  const ingests = Array.from({ length: 2 }, () => ingest(HUGE_ARRAY));
  // /healthz is asked again and again until both ingests have answered; each answer is due
  // within a second (later is no answer), so a held event loop fails here whenever it happens.
  let answered = false;
  const answers = Promise.all(ingests).finally(() => {
    answered = true;
  });
  while (!answered) {
    const health = await Promise.race([
      fetch(`${weir.url}/healthz`).then((answer) => answer.status),
      Bun.sleep(1000).then(() => "no answer within 1 s"),
    ]);
    expect(health).toBe(200);
  }
  for (const answer of await answers) {
    expect(answer.status).toBe(200);
    const { event_id: id } = (await answer.json()) as { event_id: string };
    const event = await fetch(`${weir.url}/api/v1/events/${id}`, { headers: auth });
    const { data } = (await event.json()) as { data: Record<string, unknown> };
    expect([data.status, data.status_reason, data.deliveries]).toEqual([
      "failed",
      "filter budget exceeded",
      [],
    ]);
  }
}, 60_000);

describe("limits on what a bridge holds", () => {
  let server: TestServer;
  let owner: TestAccount;
  beforeAll(async () => {
    server = await startTestServer({
      config: { bridge_max_destinations: 2, filter_max_terms: 4 },
    });
    owner = await signUp(server);
  });
  afterAll(() => server.stop());

  const destination = (filters: unknown[] = []) => ({
    name: "D",
    type: "http",
    url: "http://127.0.0.1:9/",
    filters,
  });

  test("more destinations than bridge_max_destinations is a 422 naming destinations", async () => {
    const tooMany = await callAs(server, owner, "POST", "/api/v1/bridges", {
      name: "Wide",
      source: { name: "Wide source", type: "webhook" },
      destinations: [destination(), destination(), destination()],
    });
    expect(tooMany.status).toBe(422);
    expect(Object.keys(tooMany.body.errors)).toEqual(["destinations"]);
    const full = await callAs(server, owner, "POST", "/api/v1/bridges", {
      name: "Full",
      source: { name: "Full source", type: "webhook" },
      destinations: [destination(), destination()],
    });
    expect(full.status).toBe(201);
    const one = await callAs(
      server,
      owner,
      "POST",
      `/api/v1/bridges/${full.body.data.id}/destinations`,
      destination(),
    );
    expect([one.status, Object.keys(one.body.errors ?? {})]).toEqual([422, ["destinations"]]);
  });

  test("more filter terms than filter_max_terms is a 422 naming the filter", async () => {
    const answer = await callAs(server, owner, "POST", "/api/v1/bridges", {
      name: "Deep",
      source: { name: "Deep source", type: "webhook" },
      destinations: [destination([{ "body.a": { $or: [1, 2, 3, 4, 5] } }])],
    });
    expect(answer.status).toBe(422);
    const [field] = Object.keys(answer.body.errors);
    expect(field).toStartWith("destinations[0].filters");
    expect(answer.body.errors[field as string][0]).toContain("at most 4 terms");
  });
});
