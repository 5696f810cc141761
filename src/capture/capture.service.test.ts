import { afterEach, describe, expect, test } from "bun:test";
import { CAPTURE_SAFETY_HEADERS } from "../endpoints/endpoints.model.ts";
import { createIds } from "../shared/ids.ts";
import { DEFAULT_PLANS } from "../shared/plans.ts";
import { seedEndpoint, seedOrganization, storedRequests } from "../test-utils/capture-fixtures.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import type { CaptureEndpoint } from "./capture.model.ts";
import { createCaptureRepo } from "./capture.repo.ts";
import { type CaptureInput, createCaptureService } from "./capture.service.ts";
import { createCaptureWriter } from "./capture.writer.ts";

const dbs: TestDb[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.destroy();
});

function setup() {
  const db = createTestDb();
  dbs.push(db);
  const repo = createCaptureRepo(db);
  const writer = createCaptureWriter({
    tx: db.tx,
    store: (batch) => repo.insertRows(batch.map((c) => c.request)),
    onCommitted: () => {},
  });
  const clock = createFakeClock();
  const service = createCaptureService({
    repo,
    writer,
    limits: {
      diskLow: () => false,
      noteWritten: () => {},
      anonymousEnabled: () => true,
      anonymousFull: () => false,
      anonymousStored: () => {},
    },
    clock,
    ids: createIds(),
    plans: DEFAULT_PLANS,
    rateLimit: "off",
  });
  seedOrganization(db.sqlite, "org", "team");
  seedEndpoint(db.sqlite, { id: "ep", slug: "hook", organizationId: "org" });
  return { db, repo, service, clock };
}

const input = (fields: Partial<CaptureInput> = {}): CaptureInput => ({
  method: "POST",
  path: "",
  queryString: "",
  headers: { "content-type": "text/plain" },
  rawHeaders: [["content-type", "text/plain"]],
  body: new TextEncoder().encode("hi"),
  remoteIp: "127.0.0.1",
  ...fields,
});

function admitted(service: ReturnType<typeof setup>["service"], slug = "hook"): CaptureEndpoint {
  const admission = service.admitRequest(slug);
  if ("refusal" in admission) throw new Error(`refused: ${admission.refusal.error}`);
  return admission.endpoint;
}

describe("storeRequest", () => {
  test("stores the request with the clock's time and answers the default", async () => {
    const { db, service } = setup();
    const result = await service.storeRequest(admitted(service), input());
    if ("refusal" in result) throw new Error("refused");
    expect(result.answer.status).toBe(200);
    const [row] = storedRequests(db.sqlite, "ep");
    expect(row).toMatchObject({
      id: result.request.id,
      created_at: "2026-01-01T00:00:00.000Z",
      content_type: "text/plain",
    });
  });

  test("an endpoint deleted between admission and commit is refused 404 and nothing is stored", async () => {
    const { db, service } = setup();
    const endpoint = admitted(service);
    db.sqlite.run("DELETE FROM debug_endpoints WHERE id = 'ep'");
    expect(await service.storeRequest(endpoint, input())).toEqual({
      refusal: { status: 404, error: "not_found" },
    });
    expect(db.sqlite.query("SELECT count(*) AS n FROM captured_requests").get()).toEqual({ n: 0 });
  });

  test("a batch with a deleted endpoint still stores the others", async () => {
    const { db, service } = setup();
    seedEndpoint(db.sqlite, { id: "ep2", slug: "hook-two", organizationId: "org" });
    const [one, two] = [admitted(service), admitted(service, "hook-two")];
    db.sqlite.run("DELETE FROM debug_endpoints WHERE id = 'ep2'");
    const [a, b] = await Promise.all([
      service.storeRequest(one, input()),
      service.storeRequest(two, input()),
    ]);
    expect("request" in a).toBe(true);
    expect(b).toEqual({ refusal: { status: 404, error: "not_found" } });
    expect(storedRequests(db.sqlite, "ep")).toHaveLength(1);
  });

  test("a registered override decides the answer, and its status is the one stored", async () => {
    const { db, service } = setup();
    const seen: string[] = [];
    service.setResponseOverride(async ({ request, endpoint }) => {
      seen.push(`${endpoint.slug} ${new TextDecoder().decode(request.body)}`);
      return { status: 418, body: "teapot", headers: { "X-By": "actions" } };
    });
    const result = await service.storeRequest(admitted(service), input());
    if ("refusal" in result) throw new Error("refused");
    expect(result.answer).toEqual({
      status: 418,
      headers: {
        "content-type": "application/json",
        "access-control-allow-origin": "*",
        "x-by": "actions",
        ...CAPTURE_SAFETY_HEADERS,
      },
      body: "teapot",
    });
    expect(seen).toEqual(["hook hi"]);
    expect(storedRequests(db.sqlite, "ep")[0]?.status).toBe(418);
    // Null keeps the endpoint's answer; removing the override restores the default path.
    service.setResponseOverride(() => null);
    const kept = await service.storeRequest(admitted(service), input());
    expect("answer" in kept && kept.answer.status).toBe(200);
    service.setResponseOverride(null);
  });

  test("the override is asked only once the capture is committed", async () => {
    const { db, service } = setup();
    const storedWhenAsked: number[] = [];
    service.setResponseOverride(() => {
      storedWhenAsked.push(storedRequests(db.sqlite, "ep").length);
      return null;
    });
    await service.storeRequest(admitted(service), input());
    expect(storedWhenAsked).toEqual([1]);
    service.setResponseOverride(null);
  });

  test("an override that throws leaves the endpoint's answer and the capture stored", async () => {
    const { db, service } = setup();
    service.setResponseOverride(() => {
      throw new Error("action broke");
    });
    const result = await service.storeRequest(admitted(service), input());
    expect("answer" in result && result.answer.status).toBe(200);
    expect(storedRequests(db.sqlite, "ep")).toHaveLength(1);
  });

  test("the custom delay is capped at 30 s", async () => {
    const { db, service } = setup();
    db.sqlite.run(
      "UPDATE debug_endpoints SET response_status = 200, response_delay_ms = 90000 WHERE id = 'ep'",
    );
    const result = await service.storeRequest(admitted(service), input());
    expect("delayMs" in result && result.delayMs).toBe(30_000);
  });
});
