import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Bridge } from "./bridges.repo.ts";
import type { BridgesStore, NewDestination } from "./bridges.store.ts";
import type { Destination } from "./destinations.model.ts";
import type { Source } from "./sources.model.ts";

/** A store over a migrated, empty database, and what a test needs around it. */
export interface BridgesStoreFixture {
  store: BridgesStore;
  /** Adds organizations (the rows' foreign key), on the free plan. */
  addOrganizations(ids: string[]): Promise<void>;
  close(): Promise<void>;
}

let counter = 0;
const next = (prefix: string) => {
  counter += 1;
  return `${prefix}-${counter}`;
};

const sourceOf = (organizationId: string, name: string): Source => ({
  id: next("src"),
  organizationId,
  name,
  type: "webhook",
  slug: next("slug"),
  deduplicationConfig: null,
  verification: null,
  createdAt: "2026-02-01T00:00:00.000Z",
  updatedAt: "2026-02-01T00:00:00.000Z",
});

const bridgeOf = (source: Source, name: string, createdAt: string, id = next("br")): Bridge => ({
  id,
  organizationId: source.organizationId,
  sourceId: source.id,
  name,
  status: "active",
  createdAt,
  updatedAt: createdAt,
});

const destinationOf = (
  bridge: Bridge,
  name: string,
  createdAt: string,
  sealedSecret: string | null = "sealed-1",
  id = next("dst"),
): NewDestination => {
  const destination: Destination = {
    id,
    bridgeId: bridge.id,
    organizationId: bridge.organizationId,
    name,
    type: "http",
    priority: "normal",
    url: "https://example.test/hook",
    method: "POST",
    headers: { "x-team": "ops" },
    maxRetries: 5,
    webhookUrl: null,
    botToken: null,
    chatId: null,
    filters: [{ path: "$.type", op: "eq", value: "paid" }],
    transformationId: null,
    pathForwarding: false,
    createdAt,
    updatedAt: createdAt,
  };
  return { destination, sealedSecret };
};

const AT = "2026-02-01T00:00:00.000Z";

/**
 * One suite of behaviour for every BridgesStore: each dialect's store must answer it alike.
 * Each test works in organizations of its own, so the tests share one database.
 */
export function describeBridgesStore(
  name: string,
  makeStore: () => Promise<BridgesStoreFixture>,
): void {
  describe(`${name}: the bridges store`, () => {
    let fixture: BridgesStoreFixture | undefined;
    beforeAll(async () => {
      fixture = await makeStore();
    });
    afterAll(async () => {
      await fixture?.close();
    });
    const store = () => {
      if (!fixture) throw new Error("the store could not be made (see the error before)");
      return fixture.store;
    };
    /** Two fresh organizations, each with a source: the test's own and a stranger's. */
    const organizations = async () => {
      const ids = [next("org-own"), next("org-other")];
      await fixture?.addOrganizations(ids);
      const own = sourceOf(ids[0] as string, "Own source");
      const other = sourceOf(ids[1] as string, "Other source");
      expect(await store().createBridge(bridgeOf(own, "seed", AT), [], own)).toBe(true);
      expect(await store().createBridge(bridgeOf(other, "seed", AT), [], other)).toBe(true);
      return { own, other };
    };

    test("a bridge and its destinations read back as written, settings and secrets decoded", async () => {
      const { own } = await organizations();
      const bridge = bridgeOf(own, "Payments", "2026-02-02T00:00:00.000Z");
      const http = destinationOf(bridge, "Ledger", "2026-02-02T00:00:00.000Z");
      const chat = destinationOf(bridge, "Chat", "2026-02-03T00:00:00.000Z", null);
      chat.destination = {
        ...chat.destination,
        type: "slack",
        url: null,
        method: null,
        headers: null,
        webhookUrl: "https://hooks.example.test/x",
        filters: [],
        pathForwarding: true,
      };
      expect(await store().createBridge(bridge, [http, chat], null)).toBe(true);
      expect(await store().findBridge(own.organizationId, bridge.id)).toEqual(bridge);
      expect(await store().destinationsOf([bridge.id])).toEqual([
        http.destination,
        chat.destination,
      ]);
      expect(await store().findDestination(bridge.id, chat.destination.id)).toEqual(
        chat.destination,
      );
      expect(await store().findDestinationWithSecrets(http.destination.id)).toEqual({
        destination: http.destination,
        secrets: { current: "sealed-1", previous: null, previousUntil: null },
      });
      expect(await store().describeDestination(http.destination.id)).toEqual({
        destinationId: http.destination.id,
        organizationId: own.organizationId,
        bridgeId: bridge.id,
        bridgeName: "Payments",
        sourceName: "Own source",
        destinationName: "Ledger",
        destinationType: "http",
        destinationPriority: "normal",
      });
      expect(await store().describeDestination("no-such-destination")).toBeNull();
      expect(await store().findDestinationWithSecrets("no-such-destination")).toBeNull();
    });

    test("a bridge whose new source's name is taken stores nothing; two at once: one is stored", async () => {
      const { own } = await organizations();
      const taken = sourceOf(own.organizationId, own.name);
      const bridge = bridgeOf(taken, "Doomed", AT);
      expect(await store().createBridge(bridge, [destinationOf(bridge, "d", AT)], taken)).toBe(
        false,
      );
      expect(await store().findBridge(own.organizationId, bridge.id)).toBeNull();
      expect(await store().destinationsOf([bridge.id])).toEqual([]);
      const raced = Array.from({ length: 4 }, () => {
        const source = sourceOf(own.organizationId, "Raced");
        const b = bridgeOf(source, "Raced bridge", AT);
        return store().createBridge(b, [destinationOf(b, "d", AT)], source);
      });
      expect((await Promise.all(raced)).filter(Boolean)).toHaveLength(1);
      const names = (await store().listBridges(own.organizationId)).map((b) => b.name);
      expect(names.filter((n) => n === "Raced bridge")).toHaveLength(1);
    });

    test("another organization's bridges and destinations are never found, listed or removed", async () => {
      const { own, other } = await organizations();
      const theirs = bridgeOf(other, "Theirs", AT);
      const theirDestination = destinationOf(theirs, "Their destination", AT);
      await store().createBridge(theirs, [theirDestination], null);
      expect(await store().findBridge(own.organizationId, theirs.id)).toBeNull();
      expect((await store().listBridges(own.organizationId)).map((b) => b.id)).not.toContain(
        theirs.id,
      );
      expect(await store().removeBridge(own.organizationId, theirs.id)).toBe(false);
      expect(await store().destinationsOfOrganization(own.organizationId)).toEqual([]);
      expect(await store().destinationsOfOrganization(other.organizationId)).toEqual([
        theirDestination.destination,
      ]);
      // A destination is removed only through its own bridge.
      const mine = bridgeOf(own, "Mine", AT);
      await store().createBridge(mine, [], null);
      expect(await store().findDestination(mine.id, theirDestination.destination.id)).toBeNull();
      expect(await store().removeDestination(mine.id, theirDestination.destination.id)).toBe(false);
      expect(await store().findBridge(other.organizationId, theirs.id)).toEqual(theirs);
    });

    test("bridges list newest first (ties: greater id first); a source's and destinations oldest first", async () => {
      const { own } = await organizations();
      const older = bridgeOf(own, "older", "2026-01-01T00:00:00.000Z", next("older"));
      const tieA = bridgeOf(own, "a", "2026-03-01T00:00:00.000Z", `${next("tie")}-a`);
      const tieB = { ...tieA, id: `${tieA.id.slice(0, -2)}-b`, name: "b" };
      const tieUpper = { ...tieA, id: `${tieA.id.slice(0, -2)}-B`, name: "B" };
      for (const b of [older, tieB, tieA, tieUpper]) await store().createBridge(b, [], null);
      const listed = (await store().listBridges(own.organizationId)).map((b) => b.id);
      // Upper case sorts before lower case bytewise, as in SQLite.
      expect(listed.slice(0, 3)).toEqual([tieB.id, tieA.id, tieUpper.id]);
      expect(listed.indexOf(older.id)).toBe(listed.length - 1);
      const ofSource = (await store().bridgesOfSource(own.id)).map((b) => b.id);
      expect(ofSource[0]).toBe(older.id);
      expect(ofSource.slice(-3)).toEqual([tieUpper.id, tieA.id, tieB.id]);
      const late = destinationOf(tieA, "late", "2026-03-02T00:00:00.000Z");
      const early = destinationOf(older, "early", "2026-01-02T00:00:00.000Z");
      await store().addDestination(late, 10);
      await store().addDestination(early, 10);
      expect((await store().destinationsOf([tieA.id, older.id])).map((d) => d.name)).toEqual([
        "early",
        "late",
      ]);
      expect(await store().destinationsOf([])).toEqual([]);
    });

    test("updates store the bridge's and the destination's settings; removals answer whether they were there", async () => {
      const { own } = await organizations();
      const bridge = bridgeOf(own, "Before", AT);
      const added = destinationOf(bridge, "Before", AT);
      await store().createBridge(bridge, [added], null);
      const paused: Bridge = {
        ...bridge,
        name: "After",
        status: "paused",
        updatedAt: "2026-04-01T00:00:00.000Z",
      };
      await store().updateBridge(paused);
      expect(await store().findBridge(own.organizationId, bridge.id)).toEqual(paused);
      const changed: Destination = {
        ...added.destination,
        name: "After",
        priority: "high",
        headers: null,
        filters: [],
        transformationId: null,
        pathForwarding: true,
        maxRetries: 0,
        updatedAt: "2026-04-01T00:00:00.000Z",
      };
      await store().updateDestination(changed);
      expect(await store().findDestination(bridge.id, changed.id)).toEqual(changed);
      expect(await store().removeDestination(bridge.id, changed.id)).toBe(true);
      expect(await store().removeDestination(bridge.id, changed.id)).toBe(false);
      await store().addDestination(destinationOf(bridge, "Again", AT), 10);
      expect(await store().removeBridge(own.organizationId, bridge.id)).toBe(true);
      expect(await store().removeBridge(own.organizationId, bridge.id)).toBe(false);
      // Its destinations went with it.
      expect(await store().destinationsOf([bridge.id])).toEqual([]);
    });

    test("a bridge holds at most the limit, also when destinations are added at once", async () => {
      const { own } = await organizations();
      const bridge = bridgeOf(own, "Limited", AT);
      await store().createBridge(bridge, [destinationOf(bridge, "first", AT)], null);
      const outcomes = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          store().addDestination(destinationOf(bridge, `d${i}`, AT), 3),
        ),
      );
      expect(outcomes.filter(Boolean)).toHaveLength(2);
      expect(await store().destinationsOf([bridge.id])).toHaveLength(3);
      expect(await store().addDestination(destinationOf(bridge, "full", AT), 3)).toBe(false);
    });

    test("a rotation keeps the replaced secret as the previous one, with its deadline; none before the first", async () => {
      const { own } = await organizations();
      const bridge = bridgeOf(own, "Signed", AT);
      const unsigned = destinationOf(bridge, "Unsigned", AT, null);
      const signed = destinationOf(bridge, "Signed", AT, "sealed-a");
      await store().createBridge(bridge, [unsigned, signed], null);
      const until = 1_900_000_000_000;
      await store().rotateSecret(
        signed.destination.id,
        "sealed-b",
        until,
        "2026-05-01T00:00:00.000Z",
      );
      const once = await store().findDestinationWithSecrets(signed.destination.id);
      expect(once?.secrets).toEqual({
        current: "sealed-b",
        previous: "sealed-a",
        previousUntil: until,
      });
      expect(once?.destination.updatedAt).toBe("2026-05-01T00:00:00.000Z");
      await store().rotateSecret(signed.destination.id, "sealed-c", until + 1, AT);
      expect((await store().findDestinationWithSecrets(signed.destination.id))?.secrets).toEqual({
        current: "sealed-c",
        previous: "sealed-b",
        previousUntil: until + 1,
      });
      await store().rotateSecret(unsigned.destination.id, "sealed-x", until, AT);
      expect((await store().findDestinationWithSecrets(unsigned.destination.id))?.secrets).toEqual({
        current: "sealed-x",
        previous: null,
        previousUntil: null,
      });
    });
  });
}
