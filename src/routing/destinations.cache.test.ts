import { expect, test } from "bun:test";
import type { SealedSecrets } from "./bridges.repo.ts";
import { createDestinationCache } from "./destinations.cache.ts";
import type { Destination } from "./destinations.model.ts";

const HOUR = 3_600_000;

function world(sealed: SealedSecrets, type: Destination["type"] = "http") {
  const state = { version: 0, now: 1_000, reads: 0, opens: 0, deleted: false, sealed };
  const destination = { id: "d1", type } as Destination;
  const cache = createDestinationCache({
    find: (id) => {
      state.reads += 1;
      return state.deleted || id !== "d1" ? null : { destination, secrets: state.sealed };
    },
    open: (_id, s) => {
      state.opens += 1;
      const open = [`open(${s.current})`];
      if (s.previous && s.previousUntil !== null && s.previousUntil > state.now)
        open.push(`open(${s.previous})`);
      return open;
    },
    version: () => state.version,
    now: () => state.now,
  });
  return { state, cache };
}

test("one read and one unseal per routes version, however many deliveries", () => {
  const { state, cache } = world({ current: "s1", previous: null, previousUntil: null });
  for (let i = 0; i < 100; i++) expect(cache.get("d1")?.signingSecrets).toEqual(["open(s1)"]);
  expect([state.reads, state.opens]).toEqual([1, 1]);
  // A rotation (or any change of the routes) bumps the version: the next delivery reopens.
  state.sealed = { current: "s2", previous: "s1", previousUntil: state.now + 24 * HOUR };
  state.version += 1;
  expect(cache.get("d1")?.signingSecrets).toEqual(["open(s2)", "open(s1)"]);
  expect([state.reads, state.opens]).toEqual([2, 2]);
});

test("the replaced secret stops signing when its 24 h end, without a routes change", () => {
  const until = 1_000 + 24 * HOUR;
  const { state, cache } = world({ current: "s2", previous: "s1", previousUntil: until });
  expect(cache.get("d1")?.signingSecrets).toEqual(["open(s2)", "open(s1)"]);
  state.now = until - 1;
  expect(cache.get("d1")?.signingSecrets).toEqual(["open(s2)", "open(s1)"]);
  state.now = until;
  expect(cache.get("d1")?.signingSecrets).toEqual(["open(s2)"]);
  expect(state.opens).toBe(2);
});

test("a deleted destination is null once the routes changed; chat destinations open nothing", () => {
  const { state, cache } = world({ current: "s1", previous: null, previousUntil: null });
  expect(cache.get("d1")).not.toBeNull();
  state.deleted = true;
  state.version += 1;
  expect(cache.get("d1")).toBeNull();
  expect(cache.get("unknown")).toBeNull();
  const chat = world({ current: null, previous: null, previousUntil: null }, "slack");
  expect(chat.cache.get("d1")?.signingSecrets).toEqual([]);
  expect(chat.state.opens).toBe(0);
});
