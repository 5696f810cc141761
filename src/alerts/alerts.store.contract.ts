import { describe, expect, test } from "bun:test";
import type { FiringSnapshot } from "./alert-message.model.ts";
import type { AlertRule } from "./alerts.model.ts";
import { type AlertFiring, NO_SECRETS, type StoredRule } from "./alerts.repo.ts";
import type { AlertsStore } from "./alerts.store.ts";

/** A store over a fresh database, and what the tests need around it (`$1`-style parameters). */
export interface AlertsStoreWorld {
  store: AlertsStore;
  run(sql: string, params?: unknown[]): Promise<unknown>;
  /** Stores over the same database through clients of their own (other nodes). */
  otherNodes(n: number): Promise<AlertsStore[]>;
}

const T0 = "2026-01-01T00:00:00.000Z";
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

async function organizations(world: AlertsStoreWorld) {
  for (const [id, plan] of [
    ["org-a", "team"],
    ["org-b", "free"],
    ["org-c", "free"],
  ]) {
    await world.run(
      "INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES ($1, $1, $2, $3, $3)",
      [id, plan, T0],
    );
  }
}

function ruleOf(id: string, fields: Partial<AlertRule> = {}): StoredRule {
  return {
    rule: {
      id,
      organizationId: "org-a",
      name: `rule ${id}`,
      condition: { type: "issue_created", value: null },
      channelType: "slack",
      channel: { webhook_url: "https://hooks.example.com/{{SLACK}}" },
      enabled: true,
      createdAt: T0,
      updatedAt: T0,
      ...fields,
    },
    secrets: NO_SECRETS,
  };
}

const snapshot = { issue: { id: "i1", occurrence_count: 3 } } as unknown as FiringSnapshot;

function firingOf(id: string, fields: Partial<AlertFiring> = {}): AlertFiring {
  return {
    id,
    organizationId: "org-a",
    ruleId: "r1",
    issueId: "i1",
    conditionKey: "issue_created:",
    test: false,
    snapshot,
    createdAt: T0,
    ...fields,
  };
}

/** One suite of behaviour, run against every implementation of AlertsStore. */
export function describeAlertsStore(name: string, makeWorld: () => Promise<AlertsStoreWorld>) {
  describe(`AlertsStore (${name})`, () => {
    test("reads back rules as written, scoped to their organization; pages newest first", async () => {
      const world = await makeWorld();
      const { store } = world;
      await organizations(world);
      const webhook: StoredRule = {
        rule: {
          ...ruleOf("r1").rule,
          condition: { type: "monitor_down", value: null, monitorIds: ["m1", "m2"] },
          channelType: "webhook",
          channel: { url: "https://example.com/hook", headers: { a: "b" } },
        },
        secrets: { current: "sealed-1", previous: "sealed-0", previousUntil: 1_767_225_600_000 },
      };
      await store.insertRule(webhook);
      await store.insertRule(ruleOf("r2", { createdAt: at(1), enabled: false }));
      await store.insertRule(
        ruleOf("r3", { condition: { type: "occurrence_threshold", value: 2.5 } }),
      );
      await store.insertRule(ruleOf("r4", { organizationId: "org-b" }));
      await store.insertRule(
        ruleOf("r5", { condition: { type: "monitor_up", value: null, monitorIds: null } }),
      );
      expect(await store.findRule("org-a", "r1")).toEqual(webhook);
      expect(await store.findRule("org-b", "r1")).toBeNull();
      expect(await store.findRule("org-a", "nope")).toBeNull();
      expect((await store.findRuleById("r4"))?.rule.organizationId).toBe("org-b");
      expect((await store.findRule("org-a", "r3"))?.rule.condition).toEqual({
        type: "occurrence_threshold",
        value: 2.5,
      });
      expect((await store.findRule("org-a", "r5"))?.rule.condition).toEqual({
        type: "monitor_up",
        value: null,
        monitorIds: null,
      });
      const first = await store.page("org-a", 2, 0);
      expect(first.rules.map((r) => r.id)).toEqual(["r2", "r5"]);
      expect(first.total).toBe(4);
      expect((await store.page("org-a", 2, 2)).rules.map((r) => r.id)).toEqual(["r3", "r1"]);
      expect((await store.allRules("org-a")).map((r) => r.id)).toEqual(["r1", "r3", "r5", "r2"]);
      expect((await store.enabledRules("org-a")).map((s) => s.rule.id).sort()).toEqual([
        "r1",
        "r3",
        "r5",
      ]);
      expect(
        (await store.enabledRulesOfType("issue_created")).map((s) => s.rule.id).sort(),
      ).toEqual(["r4"]);
      expect((await store.ruleIdsOf("org-b")).sort()).toEqual(["r4"]);
      expect(await store.tenantsWithRules()).toEqual(
        expect.arrayContaining([
          { id: "org-a", plan: "team" },
          { id: "org-b", plan: "free" },
        ]),
      );
      expect((await store.tenantsWithRules()).length).toBe(2);
    });

    test("updates and removes only what it names; another organization's rule stays", async () => {
      const world = await makeWorld();
      const { store } = world;
      await organizations(world);
      await store.insertRule(ruleOf("r1"));
      await store.insertRule(ruleOf("r2", { organizationId: "org-b" }));
      const changed: StoredRule = {
        rule: {
          ...ruleOf("r1").rule,
          name: "renamed",
          condition: { type: "tls_expiring", value: 7, monitorIds: ["m9"] },
          enabled: false,
          updatedAt: at(5),
        },
        secrets: { current: "s", previous: null, previousUntil: null },
      };
      await store.updateRule(changed);
      expect(await store.findRule("org-a", "r1")).toEqual(changed);
      expect(await store.removeRule("org-a", "r2")).toBe(false);
      expect(await store.findRule("org-b", "r2")).not.toBeNull();
      expect(await store.removeRule("org-a", "r1")).toBe(true);
      expect(await store.removeRule("org-a", "r1")).toBe(false);
      expect(await store.findRule("org-a", "r1")).toBeNull();
    });

    test("a rule fires once per issue and condition; test alerts never collide", async () => {
      const world = await makeWorld();
      const { store } = world;
      await organizations(world);
      await store.insertRule(ruleOf("r1"));
      expect(await store.insertFiring(firingOf("f1"))).toBe(true);
      expect(await store.insertFiring(firingOf("f2"))).toBe(false);
      expect(await store.insertFiring(firingOf("f3", { conditionKey: "open_for_days:3" }))).toBe(
        true,
      );
      const testFiring = firingOf("t1", { issueId: null, test: true, createdAt: at(1) });
      expect(await store.insertFiring(testFiring)).toBe(true);
      expect(await store.insertFiring(firingOf("t2", { issueId: null, test: true }))).toBe(true);
      expect(await store.findFiring("t1")).toEqual(testFiring);
      expect(await store.findFiring("f2")).toBeNull();
      const page = await store.firingsPage("r1", 2, 0);
      expect(page.total).toBe(4);
      expect(page.firings.map((f) => f.id)).toEqual(["t1", "t2"]);
      expect((await store.firingsPage("r1", 2, 2)).firings.map((f) => f.id)).toEqual(["f3", "f1"]);
    });

    test("nodes racing to fire one rule for one issue write one firing", async () => {
      const world = await makeWorld();
      await organizations(world);
      await world.store.insertRule(ruleOf("r1"));
      const nodes = [world.store, ...(await world.otherNodes(3))];
      const won = await Promise.all(
        nodes.flatMap((node, n) =>
          [0, 1].map((k) => node.insertFiring(firingOf(`f-${n}-${k}`, { issueId: "race" }))),
        ),
      );
      expect(won.filter(Boolean).length).toBe(1);
      expect((await world.store.firingsPage("r1", 50, 0)).total).toBe(1);
    });

    test("walks a rule's old firings oldest first after a cursor, and removes them", async () => {
      const world = await makeWorld();
      const { store } = world;
      await organizations(world);
      await store.insertRule(ruleOf("r1"));
      for (const [id, minute] of [
        ["b", 0],
        ["a", 0],
        ["c", 1],
        ["d", 2],
        ["e", 9],
      ] as const) {
        await store.insertFiring(firingOf(id, { issueId: `i-${id}`, createdAt: at(minute) }));
      }
      const start = { createdAt: "", id: "" };
      expect(await store.firingsBefore("r1", at(5), start, 3)).toEqual([
        { id: "a", issueId: "i-a", createdAt: at(0) },
        { id: "b", issueId: "i-b", createdAt: at(0) },
        { id: "c", issueId: "i-c", createdAt: at(1) },
      ]);
      const next = await store.firingsBefore("r1", at(5), { createdAt: at(0), id: "a" }, 10);
      expect(next.map((f) => f.id)).toEqual(["b", "c", "d"]);
      expect(await store.firingsBefore("r2", at(5), start, 10)).toEqual([]);
      await store.removeFirings(["a", "c"]);
      await store.removeFirings([]);
      expect((await store.firingsBefore("r1", at(99), start, 10)).map((f) => f.id)).toEqual([
        "b",
        "d",
        "e",
      ]);
    });

    test("removing a rule removes its firings", async () => {
      const world = await makeWorld();
      const { store } = world;
      await organizations(world);
      await store.insertRule(ruleOf("r1"));
      await store.insertFiring(firingOf("f1"));
      await store.removeRule("org-a", "r1");
      expect(await store.findFiring("f1")).toBeNull();
    });
  });
}
