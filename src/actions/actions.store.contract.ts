import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Action, ActionResult } from "./actions.model.ts";
import type { ActionsStore } from "./actions.store.ts";

/** A store over a migrated, empty database, and what a test needs around it. */
export interface ActionsStoreFixture {
  store: ActionsStore;
  addOrganizations(ids: string[]): Promise<void>;
  addEndpoint(organizationId: string, endpointId: string): Promise<void>;
  /** A captured request of the endpoint with one recorded run. */
  addRun(
    endpointId: string,
    requestId: string,
    runId: string,
    results: ActionResult[],
  ): Promise<void>;
  setVariable(endpointId: string, name: string, value: unknown): Promise<void>;
  close(): Promise<void>;
}

let counter = 0;
const T0 = "2026-01-01T00:00:00.000Z";

/**
 * One suite of behaviour for every ActionsStore: each dialect's store must answer it alike.
 * Each test works in organizations and endpoints of its own, so the tests share one database.
 */
export function describeActionsStore(
  name: string,
  makeStore: () => Promise<ActionsStoreFixture>,
): void {
  describe(`${name}: the actions store`, () => {
    let fixture: ActionsStoreFixture | undefined;
    beforeAll(async () => {
      fixture = await makeStore();
    });
    afterAll(async () => {
      await fixture?.close();
    });
    const opened = () => {
      if (!fixture) throw new Error("the store could not be made (see the error before)");
      return fixture;
    };
    const store = () => opened().store;
    /** The test's organization and endpoint, and a stranger's. */
    const world = async () => {
      counter += 1;
      const own = { org: `org-${counter}-own`, endpoint: `ep-${counter}-own` };
      const other = { org: `org-${counter}-other`, endpoint: `ep-${counter}-other` };
      await opened().addOrganizations([own.org, other.org]);
      await opened().addEndpoint(own.org, own.endpoint);
      await opened().addEndpoint(other.org, other.endpoint);
      return { own, other };
    };
    const action = (org: string, endpoint: string, id: string, position: number): Action => ({
      id: `${id}-${counter}`,
      organizationId: org,
      endpointId: endpoint,
      type: "modify_response",
      name: id,
      config: { status: 200, nested: { list: [1, "two"] } },
      position,
      enabled: true,
      createdAt: T0,
      updatedAt: T0,
    });

    test("insert, then find, list and chain in position order; another organization sees none", async () => {
      const { own, other } = await world();
      const second = action(own.org, own.endpoint, "second", 1);
      const first = { ...action(own.org, own.endpoint, "first", 0), enabled: false };
      await store().insert(second);
      await store().insert(first);
      expect(await store().find(own.org, own.endpoint, first.id)).toEqual(first);
      expect(await store().find(other.org, own.endpoint, first.id)).toBeNull();
      expect(await store().list(own.org, own.endpoint)).toEqual([first, second]);
      expect(await store().list(other.org, own.endpoint)).toEqual([]);
      expect(await store().chain(own.endpoint)).toEqual([first, second]);
      expect(await store().count(own.endpoint)).toBe(2);
      expect(await store().count(other.endpoint)).toBe(0);
      const ofOrg = await store().ofOrganization(own.org);
      expect(ofOrg.map((a) => a.id).sort()).toEqual([first.id, second.id].sort());
      expect(await store().ofOrganization(other.org)).toEqual([]);
    });

    test("update changes name, config and enabled only within its organization", async () => {
      const { own, other } = await world();
      const one = action(own.org, own.endpoint, "one", 0);
      await store().insert(one);
      await store().update({ ...one, organizationId: other.org, name: "stolen" });
      expect(await store().find(own.org, own.endpoint, one.id)).toEqual(one);
      const changed = {
        ...one,
        name: "renamed",
        config: { a: 1 },
        enabled: false,
        updatedAt: "2026-02-01T00:00:00.000Z",
      };
      await store().update(changed);
      expect(await store().find(own.org, own.endpoint, one.id)).toEqual(changed);
    });

    test("reorder sets positions in the order given; remove is scoped", async () => {
      const { own, other } = await world();
      const [a, b, c] = ["a", "b", "c"].map((id, i) => action(own.org, own.endpoint, id, i));
      if (!a || !b || !c) throw new Error("three actions");
      for (const x of [a, b, c]) await store().insert(x);
      await store().reorder([c.id, a.id, b.id]);
      const chain = await store().chain(own.endpoint);
      expect(chain.map((x) => [x.id, x.position])).toEqual([
        [c.id, 0],
        [a.id, 1],
        [b.id, 2],
      ]);
      expect(await store().remove(other.org, own.endpoint, a.id)).toBe(false);
      expect(await store().remove(own.org, own.endpoint, a.id)).toBe(true);
      expect(await store().remove(own.org, own.endpoint, a.id)).toBe(false);
      expect(await store().count(own.endpoint)).toBe(2);
    });

    test("append takes the next position up to the cap; two appends at once cannot both take the last place", async () => {
      const { own, other } = await world();
      const { position: _, ...first } = action(own.org, own.endpoint, "first", 0);
      expect(await store().append(first, 2)).toEqual({ ...first, position: 0 });
      const racing = ["x", "y", "z"].map((id) => {
        const { position: _p, ...fields } = action(own.org, own.endpoint, id, 0);
        return store().append(fields, 2);
      });
      const appended = (await Promise.all(racing)).filter((a) => a !== null);
      expect(appended.map((a) => a.position)).toEqual([1]);
      expect(await store().count(own.endpoint)).toBe(2);
      const { position: _o, ...theirs } = action(other.org, other.endpoint, "theirs", 0);
      expect((await store().append(theirs, 2))?.position).toBe(0);
    });

    test("remove moves the later actions up, so positions stay 0..n-1", async () => {
      const { own } = await world();
      const [a, b, c] = ["a", "b", "c"].map((id, i) => action(own.org, own.endpoint, id, i));
      if (!a || !b || !c) throw new Error("three actions");
      for (const x of [a, b, c]) await store().insert(x);
      expect(await store().remove(own.org, own.endpoint, a.id)).toBe(true);
      const chain = await store().chain(own.endpoint);
      expect(chain.map((x) => [x.id, x.position])).toEqual([
        [b.id, 0],
        [c.id, 1],
      ]);
    });

    test("the last run of a request is the latest by id; requests without one are left out", async () => {
      const { own } = await world();
      const ok: ActionResult[] = [
        {
          action_id: "x",
          type: "store_variable",
          status: "ok",
          duration_ms: 1,
          output: { n: 1 },
          error: null,
        },
      ];
      await opened().addRun(own.endpoint, `req-${counter}`, `run-${counter}-1`, []);
      await opened().addRun(own.endpoint, `req-${counter}`, `run-${counter}-2`, ok);
      expect(await store().lastRun(`req-${counter}`)).toEqual(ok);
      expect(await store().lastRun(`none-${counter}`)).toBeNull();
      const found = await store().lastRuns([`req-${counter}`, `none-${counter}`]);
      expect([...found]).toEqual([[`req-${counter}`, ok]]);
    });

    test("variables are the endpoint's own, their JSON values intact", async () => {
      const { own, other } = await world();
      await opened().setVariable(own.endpoint, "count", 3);
      await opened().setVariable(own.endpoint, "last", { id: "a", tags: ["x"] });
      await opened().setVariable(other.endpoint, "count", 99);
      expect(await store().variables(own.endpoint)).toEqual({
        count: 3,
        last: { id: "a", tags: ["x"] },
      });
      expect(await store().variables(`missing-${counter}`)).toEqual({});
    });
  });
}
