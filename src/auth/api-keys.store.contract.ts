import { describe, expect, test } from "bun:test";
import { account, at, created, key, organization } from "../test-utils/auth-rows.ts";
import type { ApiKeyEvent } from "./api-keys.ports.ts";
import type { MakeAuthStore } from "./auth.store.contract.ts";
import type { NewApiKey } from "./auth.store.ts";

/** API keys and their usage, the part of the AuthStore contract about keys. */
export function describeApiKeysStore(name: string, makeStore: MakeAuthStore) {
  const fresh = async () => {
    const events: ApiKeyEvent[] = [];
    const store = await makeStore((event) => events.push(event));
    return { store, events };
  };

  describe(`AuthStore on ${name}: API keys`, () => {
    test("API keys: listed oldest first per organization, found only in their own, told as made", async () => {
      const { store, events } = await fresh();
      await organization(store, account("ada", { minute: 1 }));
      await organization(store, account("bob", { minute: 2, plan: "team" }));
      const limited = key("k2", "o-ada", 5, {
        role: "member",
        expiresAt: at(60),
        rateLimitPerMinute: 30,
        allowedIps: ["10.0.0.0/8"],
      });
      for (const row of [limited, key("k1", "o-ada", 5), key("k3", "o-bob", 4)])
        await store.insertApiKey(row, created(row));
      expect(events.map((e) => [e.kind, e.key.id])).toEqual([
        ["created", "k2"],
        ["created", "k1"],
        ["created", "k3"],
      ]);
      expect((await store.listApiKeys("o-ada")).map((k) => k.id)).toEqual(["k1", "k2"]);
      expect(await store.findApiKey("o-ada", "k2")).toEqual({
        ...limited,
        lastIp: null,
        lastUserAgent: null,
      });
      expect(await store.findApiKey("o-bob", "k2")).toBeUndefined();
      expect(await store.activeKeyByHash("hash-k2")).toEqual({
        id: "k2",
        organizationId: "o-ada",
        name: "key k2",
        plan: "enterprise",
        role: "member",
        expiresAt: at(60),
        rateLimitPerMinute: 30,
        allowedIps: '["10.0.0.0/8"]',
      });
      expect(await store.activeKeyByHash("hash-k3")).toMatchObject({
        plan: "team",
        allowedIps: null,
      });
    });

    test("API keys: a key whose event cannot be told is not made", async () => {
      const events: ApiKeyEvent[] = [];
      const store = await makeStore((event) => {
        if (event.key.id === "bad") throw new Error("listener failed");
        events.push(event);
      });
      await organization(store, account("ada", { minute: 1 }));
      const bad = key("bad", "o-ada", 5);
      await expect(store.insertApiKey(bad, created(bad))).rejects.toThrow("listener failed");
      expect(await store.findApiKey("o-ada", "bad")).toBeUndefined();
    });

    test("API keys: revoking acts once, only in the key's organization, and is told", async () => {
      const { store, events } = await fresh();
      await organization(store, account("ada", { minute: 1 }));
      await organization(store, account("bob", { minute: 2 }));
      const row = key("k1", "o-ada", 5);
      await store.insertApiKey(row, created(row));
      const revoked = (r: NewApiKey): ApiKeyEvent => ({ ...created(r), kind: "revoked" });
      expect(await store.revokeApiKey("o-bob", "k1", at(9), revoked)).toBeNull();
      expect(await store.activeKeyByHash("hash-k1")).toMatchObject({ id: "k1" });
      expect(await store.revokeApiKey("o-ada", "k1", at(9), revoked)).toMatchObject({
        id: "k1",
        revokedAt: at(9),
      });
      expect(await store.revokeApiKey("o-ada", "k1", at(10), revoked)).toBeNull();
      expect(await store.activeKeyByHash("hash-k1")).toBeUndefined();
      expect(events.map((e) => e.kind)).toEqual(["created", "revoked"]);
      await store.announceKeyEvent({ ...created(row), kind: "denied_ip", ip: "10.1.1.1" });
      expect(events.at(-1)).toMatchObject({ kind: "denied_ip", ip: "10.1.1.1" });
    });

    test("API keys: expiring between two instants, active only, soonest first, up to a limit", async () => {
      const { store } = await fresh();
      await organization(store, account("ada", { minute: 1 }));
      await organization(store, account("bob", { minute: 2 }));
      const rows = [
        key("late", "o-ada", 3, { expiresAt: at(50) }),
        key("soon", "o-bob", 3, { expiresAt: at(20) }),
        key("edge", "o-ada", 3, { expiresAt: at(10) }),
        key("past", "o-ada", 3, { expiresAt: at(60) }),
        key("gone", "o-ada", 3, { expiresAt: at(30), revokedAt: at(4) }),
        key("never", "o-ada", 3),
      ];
      for (const row of rows) await store.insertApiKey(row, created(row));
      const ids = async (limit: number) =>
        (await store.keysExpiringBetween(at(10), at(50), limit)).map((k) => k.id);
      expect(await ids(10)).toEqual(["soon", "late"]);
      expect(await ids(1)).toEqual(["soon"]);
    });

    test("usage: a batch adds day counts and last uses, skips deleted keys, drops old days", async () => {
      const { store } = await fresh();
      await organization(store, account("ada", { minute: 1 }));
      const row = key("k1", "o-ada", 5);
      await store.insertApiKey(row, created(row));
      const use = { at: at(7), ip: "10.0.0.1", userAgent: "curl" };
      await store.writeApiKeyUsage(
        {
          uses: new Map([
            ["k1", use],
            ["ghost", use],
          ]),
          days: [
            { apiKeyId: "k1", date: "2026-01-01", requests: 3, errors: 1 },
            { apiKeyId: "k1", date: "2025-11-01", requests: 9, errors: 0 },
            { apiKeyId: "ghost", date: "2026-01-01", requests: 1, errors: 0 },
          ],
        },
        "2025-01-01",
      );
      await store.writeApiKeyUsage(
        {
          uses: new Map(),
          days: [
            { apiKeyId: "k1", date: "2026-01-01", requests: 2, errors: 2 },
            { apiKeyId: "k1", date: "2025-12-31", requests: 1, errors: 0 },
          ],
        },
        "2025-12-01",
      );
      expect(await store.usageDaysSince("k1", "2000-01-01")).toEqual([
        { date: "2025-12-31", requests: 1, errors: 0 },
        { date: "2026-01-01", requests: 5, errors: 3 },
      ]);
      expect(await store.usageDaysSince("k1", "2026-01-01")).toEqual([
        { date: "2026-01-01", requests: 5, errors: 3 },
      ]);
      expect(await store.findApiKey("o-ada", "k1")).toMatchObject({
        lastUsedAt: at(7),
        lastIp: "10.0.0.1",
        lastUserAgent: "curl",
      });
    });
  });
}
