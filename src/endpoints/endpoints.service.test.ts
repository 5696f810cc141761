import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { DomainEvents } from "../events.ts";
import { AppError } from "../shared/errors.ts";
import { createIds, type Ids } from "../shared/ids.ts";
import { DEFAULT_PLANS } from "../shared/plans.ts";
import { createSealer } from "../shared/sealed.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { insertCapturedRequest, insertOrganization } from "../test-utils/requests-fixtures.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import { createAnonymousEndpoint } from "./anonymous.service.ts";
import {
  createEndpoint,
  deleteEndpoint,
  type EndpointsDeps,
  getEndpoint,
  listEndpoints,
  type Tenant,
  updateEndpoint,
} from "./endpoints.service.ts";
import { createEndpointsSqliteStore } from "./endpoints.sqlite.ts";

let db: TestDb;
let deps: EndpointsDeps;
let events: Array<[string, unknown]>;
/** Random suffixes to hand out before falling back to real randomness. */
let suffixes: string[];

beforeEach(() => {
  db = createTestDb();
  insertOrganization(db, "org-a", "free");
  insertOrganization(db, "org-b", "team");
  events = [];
  suffixes = [];
  const real = createIds();
  const ids: Ids = { uuid: real.uuid, base62: (n) => suffixes.shift() ?? real.base62(n) };
  deps = {
    store: createEndpointsSqliteStore(db).store,
    checkTarget: () => null,
    clock: createFakeClock(),
    ids,
    plans: structuredClone(DEFAULT_PLANS),
    sealer: createSealer(new Uint8Array(32), "test"),
    bus: {
      publish: <K extends keyof DomainEvents>(name: K, payload: DomainEvents[K]) => {
        events.push([name, payload]);
      },
    },
  };
});
afterEach(() => db.destroy());

const freeA: Tenant = { organizationId: "org-a", plan: "free" };
const teamB: Tenant = { organizationId: "org-b", plan: "team" };
const create = (tenant: Tenant = freeA, fields: Record<string, unknown> = {}) =>
  createEndpoint({ tenant, body: { debug_endpoint: { name: "Hooks", ...fields } } }, deps);

async function errorOf(call: () => Promise<unknown>): Promise<AppError> {
  try {
    await call();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("expected an AppError");
}

describe("create", async () => {
  test("new endpoints are active with a generated slug and no requests", async () => {
    suffixes.push("AbCd1234");
    const view = await create();
    expect(view).toMatchObject({
      name: "Hooks",
      slug: "hooks-abcd1234",
      status: "active",
      organizationId: "org-a",
      requestCount: 0,
      lastRequestAt: null,
      createdAt: "2026-01-01T00:00:00.000Z",
    });
  });

  test("a generated slug that clashes is drawn again", async () => {
    await create(freeA, { slug: "hooks-clash000" });
    suffixes.push("clash000", "fresh111");
    expect((await create(freeA)).slug).toBe("hooks-fresh111");
  });

  test("the plan limit counts the organization's endpoints only", async () => {
    for (let i = 0; i < 3; i++) await create();
    expect((await errorOf(() => create())).toBody()).toEqual({ error: "endpoint_limit_reached" });
    expect((await errorOf(() => create())).status).toBe(403);
    expect((await create(teamB)).organizationId).toBe("org-b");
  });

  test("null in the plan table means unlimited", async () => {
    deps.plans.free.debug_endpoints = null;
    for (let i = 0; i < 5; i++) await create();
    expect(await listEndpoints("org-a", deps)).toHaveLength(5);
  });

  test("slugs are unique across organizations and anonymous endpoints (409)", async () => {
    await create(freeA, { slug: "shared-slug" });
    const taken = await errorOf(() => create(teamB, { slug: "shared-slug" }));
    expect([taken.status, taken.code]).toEqual([409, "slug_taken"]);
    const anonymous = await createAnonymousEndpoint({
      store: deps.store,
      clock: deps.clock,
      ids: deps.ids,
      config: { anonymous_endpoints: "on", anonymous_max_endpoints: 10 },
    });
    const clash = await errorOf(() => create(teamB, { slug: anonymous.endpoint.slug }));
    expect(clash.code).toBe("slug_taken");
  });

  test("validation comes before the plan limit, the plan limit before the slug clash", async () => {
    for (let i = 0; i < 3; i++) await create(freeA, { slug: `slug-${i}-x` });
    expect((await errorOf(() => create(freeA, { slug: "BAD" }))).status).toBe(422);
    expect((await errorOf(() => create(freeA, { slug: "slug-0-x" }))).status).toBe(403);
  });
});

describe("update", async () => {
  test("pauses, renames and sets the custom response; tells the bus", async () => {
    const created = await create();
    const updated = await updateEndpoint(
      {
        organizationId: "org-a",
        endpointId: created.id,
        body: {
          debug_endpoint: {
            status: "paused",
            name: "Renamed",
            response: { status: 201, body: "yo" },
            forward_url: "http://127.0.0.1:9/in",
          },
        },
      },
      deps,
    );
    expect(updated).toMatchObject({
      status: "paused",
      name: "Renamed",
      slug: created.slug,
      response: { status: 201, headers: {}, body: "yo", delayMs: 0 },
      forwardUrl: "http://127.0.0.1:9/in",
    });
    expect(events).toEqual([
      ["endpoint.updated", { endpointId: created.id, organizationId: "org-a", slug: created.slug }],
    ]);
    const cleared = await updateEndpoint(
      {
        organizationId: "org-a",
        endpointId: created.id,
        body: { debug_endpoint: { response: null, forward_url: null } },
      },
      deps,
    );
    expect([cleared.response, cleared.forwardUrl, cleared.name]).toEqual([null, null, "Renamed"]);
  });

  test("the same slug is accepted, another one is 422, another organization's endpoint 404", async () => {
    const created = await create();
    const ref = { organizationId: "org-a", endpointId: created.id };
    const same = await updateEndpoint(
      { ...ref, body: { debug_endpoint: { slug: created.slug } } },
      deps,
    );
    expect(same.slug).toBe(created.slug);
    const changed = await errorOf(() =>
      updateEndpoint({ ...ref, body: { debug_endpoint: { slug: "new-slug" } } }, deps),
    );
    expect(changed.toBody()).toEqual({
      error: "validation_failed",
      errors: { slug: ["cannot be changed"] },
    });
    const foreign = await errorOf(() =>
      updateEndpoint(
        { ...ref, organizationId: "org-b", body: { debug_endpoint: { name: "x" } } },
        deps,
      ),
    );
    expect(foreign.status).toBe(404);
  });
});

describe("read and delete", async () => {
  test("request counts and the newest capture time are reported", async () => {
    const created = await create();
    insertCapturedRequest(db, {
      id: "r1",
      endpointId: created.id,
      createdAt: "2026-01-02T00:00:00.000Z",
    });
    insertCapturedRequest(db, {
      id: "r2",
      endpointId: created.id,
      createdAt: "2026-01-03T00:00:00.000Z",
    });
    const view = await getEndpoint({ organizationId: "org-a", endpointId: created.id }, deps);
    expect([view.requestCount, view.lastRequestAt]).toEqual([2, "2026-01-03T00:00:00.000Z"]);
    expect((await listEndpoints("org-a", deps))[0]?.requestCount).toBe(2);
    expect(
      (await errorOf(() => getEndpoint({ organizationId: "org-b", endpointId: created.id }, deps)))
        .status,
    ).toBe(404);
  });

  test("delete hides the endpoint at once, frees its slug, leaves its requests to the drain, and tells the bus", async () => {
    const created = await create();
    insertCapturedRequest(db, { id: "r1", endpointId: created.id });
    expect(
      (
        await errorOf(() =>
          deleteEndpoint({ organizationId: "org-b", endpointId: created.id }, deps),
        )
      ).status,
    ).toBe(404);
    await deleteEndpoint({ organizationId: "org-a", endpointId: created.id }, deps);
    expect(
      (await errorOf(() => getEndpoint({ organizationId: "org-a", endpointId: created.id }, deps)))
        .status,
    ).toBe(404);
    expect(await listEndpoints("org-a", deps)).toEqual([]);
    expect(await deps.store.findById(created.id)).toBeNull();
    expect(await deps.store.findBySlug(created.slug)).toBeNull();
    expect(await deps.store.listDraining(10)).toEqual([
      { endpointId: created.id, deleted: true, clearedThroughId: null },
    ]);
    // The row and its request stay until drained; the slug is free for a new endpoint now.
    const left = db.sqlite
      .query<{ r: number }, []>("SELECT count(*) AS r FROM captured_requests")
      .get();
    expect(left).toEqual({ r: 1 });
    const again = await createEndpoint(
      {
        tenant: { organizationId: "org-a", plan: "team" },
        body: { debug_endpoint: { name: "again", slug: created.slug } },
      },
      deps,
    );
    expect(again.slug).toBe(created.slug);
    expect(again.requestCount).toBe(0);
    expect(events).toEqual([
      ["endpoint.deleted", { endpointId: created.id, organizationId: "org-a" }],
    ]);
    expect(
      (
        await errorOf(() =>
          deleteEndpoint({ organizationId: "org-a", endpointId: created.id }, deps),
        )
      ).status,
    ).toBe(404);
  });
});
