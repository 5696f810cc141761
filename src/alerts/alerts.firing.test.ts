import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { createAuthRoom } from "../auth/auth.room.ts";
import type { TxHandle } from "../db/db.tx.ts";
import { createDeliveryRoom } from "../delivery/delivery.room.ts";
import { type AppDeps, closeDeps, createDeps } from "../deps.ts";
import type {
  IssueChange,
  IssueContext,
  IssueRecord,
  IssuesPorts,
} from "../issues/issues.ports.ts";
import { startRooms } from "../room.ts";
import { isoAt } from "../shared/clock.ts";
import { loadConfig } from "../shared/config.ts";
import { createLogger } from "../shared/logger.ts";
import { createFakeClock, type FakeClock } from "../test-utils/fake-clock.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import { createManualScheduler, type ManualScheduler } from "../test-utils/manual-scheduler.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { makeTempDir } from "../test-utils/temp-dir.ts";
import type { AlertCondition } from "./alerts.model.ts";
import { createAlertsRepo, NO_SECRETS } from "./alerts.repo.ts";
import { createAlertsRoom, OPEN_FOR_DAYS_JOB } from "./alerts.room.ts";

// When rules fire, on a real SQLite file with the real outbox and a real sink, against a small
// stand-in for the issues room that calls the listener inside a real transaction, as the
// issues room does for each failed attempt. Time is a fake clock (open_for_days).

const DAY = 86_400_000;

/** The issues room's side of the contract: issues kept in memory, changes told in a db transaction. */
function createIssuesStandIn(deps: AppDeps) {
  const listeners: ((tx: TxHandle, change: IssueChange) => void)[] = [];
  const issues = new Map<string, { issue: IssueRecord; context: IssueContext }>();
  const ports: IssuesPorts = {
    onIssueChange: (listener) => listeners.push(listener),
    listUnclosedOpenedBefore: async (organizationId, openedBefore, limit) =>
      [...issues.values()]
        .filter(
          ({ issue }) =>
            issue.organizationId === organizationId &&
            issue.status !== "closed" &&
            issue.openedAt <= openedBefore,
        )
        .sort((a, b) => a.issue.openedAt.localeCompare(b.issue.openedAt))
        .slice(0, limit),
    listUnclosedOfDestination: (organizationId, destinationId) =>
      [...issues.values()]
        .map(({ issue }) => issue)
        .filter(
          (issue) =>
            issue.organizationId === organizationId &&
            issue.destinationId === destinationId &&
            issue.status !== "closed",
        ),
    findIssue: async (organizationId, id) => {
      const found = issues.get(id);
      return found?.issue.organizationId === organizationId ? found : null;
    },
  };
  let counter = 0;
  return {
    ports,
    /** A failed attempt on a destination: opens, reopens or counts the issue, then tells listeners. */
    fail(
      organizationId: string,
      context: Partial<IssueContext> = {},
      issueId?: string,
      options: { abort?: boolean; errorType?: string; errorCode?: string } = {},
    ): IssueRecord {
      const now = isoAt(deps.clock.now());
      const known = issueId ? issues.get(issueId) : undefined;
      let kind: IssueChange["kind"] = "occurred";
      let issue: IssueRecord;
      if (!known) {
        kind = "created";
        counter += 1;
        issue = {
          id: `00000000-0000-7000-8000-${String(counter).padStart(12, "0")}`,
          organizationId,
          bridgeId: "bridge-1",
          destinationId: "destination-1",
          status: "open",
          errorType: options.errorType ?? "http_error",
          errorCode: options.errorCode ?? "500",
          errorMessage: "the destination answered 500",
          occurrenceCount: 1,
          firstOccurrenceAt: now,
          lastOccurrenceAt: now,
          openedAt: now,
          resolvedAt: null,
          lastSuccessAt: null,
          createdAt: now,
          updatedAt: now,
        };
      } else {
        const reopened = known.issue.status === "closed";
        if (reopened) kind = "reopened";
        issue = {
          ...known.issue,
          status: reopened ? "open" : known.issue.status,
          occurrenceCount: known.issue.occurrenceCount + 1,
          lastOccurrenceAt: now,
          openedAt: reopened ? now : known.issue.openedAt,
          resolvedAt: null,
          updatedAt: now,
        };
      }
      const fullContext: IssueContext = {
        bridgeName: "Orders",
        sourceName: "Shop",
        destinationName: "Billing API",
        destinationType: "http",
        destinationPriority: "normal",
        ...(known?.context ?? {}),
        ...context,
      };
      deps.db.tx((tx) => {
        for (const listener of listeners) listener(tx, { kind, issue, context: fullContext });
        if (options.abort) throw new Error("recording the attempt failed");
      });
      issues.set(issue.id, { issue, context: fullContext });
      return issue;
    },
    close(issueId: string) {
      const found = issues.get(issueId);
      if (found) found.issue = { ...found.issue, status: "closed" };
    },
  };
}

interface World {
  deps: AppDeps;
  clock: FakeClock;
  scheduler: ManualScheduler;
  issues: ReturnType<typeof createIssuesStandIn>;
  organizationId: string;
  rule(condition: AlertCondition, options?: { enabled?: boolean; organizationId?: string }): string;
  /** Alerts written for a rule (firing rows). */
  firings(ruleId: string): { issue_id: string | null }[];
  stop(): Promise<void>;
}

let sink: HttpSink;
const worlds: World[] = [];
beforeAll(() => {
  sink = startHttpSink();
});
afterAll(() => sink.stop());
afterEach(async () => {
  for (const world of worlds.splice(0)) await world.stop();
  sink.requests.length = 0;
});

async function startWorld(): Promise<World> {
  const dir = makeTempDir("weir-alerts-");
  const clock = createFakeClock(Date.UTC(2026, 5, 1));
  const scheduler = createManualScheduler();
  const base = loadConfig({ env: {}, flags: { data_dir: dir.path } }).config;
  const deps = await createDeps(
    { ...base, durability: "normal" },
    { clock, scheduler, logger: createLogger({ level: "error", write: () => {} }) },
  );
  const issues = createIssuesStandIn(deps);
  const auth = createAuthRoom(deps, { resolveClientIp: () => "127.0.0.1" });
  const delivery = createDeliveryRoom(deps);
  const alerts = createAlertsRoom(deps, {
    guard: auth.ports.guard,
    delivery: delivery.ports,
    issues: issues.ports,
  });
  const stopRooms = startRooms([auth, delivery, alerts], deps);
  scheduler.start();
  deps.bus.publish("server.started", { baseUrl: "https://weir.example", port: 0 });
  const repo = createAlertsRepo(deps.db);
  const addOrganization = (id: string) =>
    deps.db.sqlite.run(
      "INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES (?, ?, 'team', '', '')",
      [id, id],
    );
  addOrganization("org-a");
  addOrganization("org-b");
  let rules = 0;
  const world: World = {
    deps,
    clock,
    scheduler,
    issues,
    organizationId: "org-a",
    rule(condition, options = {}) {
      rules += 1;
      const id = `rule-${rules}`;
      const now = isoAt(clock.now());
      repo.insertRule({
        rule: {
          id,
          organizationId: options.organizationId ?? "org-a",
          name: `Rule ${rules}`,
          condition,
          channelType: "slack",
          channel: { webhook_url: `${sink.url}/${id}` },
          enabled: options.enabled ?? true,
          createdAt: now,
          updatedAt: now,
        },
        secrets: NO_SECRETS,
      });
      return id;
    },
    firings: (ruleId) =>
      deps.db.sqlite
        .query<{ issue_id: string | null }, [string]>(
          "SELECT issue_id FROM alert_firings WHERE rule_id = ? ORDER BY created_at",
        )
        .all(ruleId),
    async stop() {
      await stopRooms();
      closeDeps(deps);
      dir.remove();
    },
  };
  worlds.push(world);
  return world;
}

const sentTo = (ruleId: string) => sink.requests.filter((r) => r.path === `/${ruleId}`);
const message = (ruleId: string) =>
  JSON.parse(new TextDecoder().decode(sentTo(ruleId)[0]?.body)) as { text: string };

test("issue_created fires when an issue is created, not when it recurs or reopens", async () => {
  const world = await startWorld();
  const older = world.issues.fail("org-a");
  const rule = world.rule({ type: "issue_created", value: null });
  world.issues.fail("org-a", {}, older.id);
  world.issues.close(older.id);
  world.issues.fail("org-a", {}, older.id);
  expect(world.firings(rule)).toEqual([]);
  const issue = world.issues.fail("org-a");
  world.issues.fail("org-a", {}, issue.id);
  world.issues.close(issue.id);
  world.issues.fail("org-a", {}, issue.id);
  expect(world.firings(rule)).toEqual([{ issue_id: issue.id }]);
  await pollUntil(() => sentTo(rule).length === 1, { what: "the alert at the sink" });
  expect(message(rule).text).toStartWith("New issue: Billing API (http_error 500)");
  expect(message(rule).text).toContain("Bridge Orders (source Shop)");
});

test("a circuit_open issue beside its destination's cause is not alerted; alone, it is", async () => {
  const world = await startWorld();
  const rule = world.rule({ type: "issue_created", value: null });
  const breaker = { errorType: "circuit_breaker_error", errorCode: "circuit_open" };
  const cause = world.issues.fail("org-a");
  const echo = world.issues.fail("org-a", {}, undefined, breaker);
  expect(world.firings(rule)).toEqual([{ issue_id: cause.id }]);
  world.issues.close(cause.id);
  world.issues.close(echo.id);
  const alone = world.issues.fail("org-a", {}, undefined, breaker);
  expect(world.firings(rule)).toEqual([{ issue_id: cause.id }, { issue_id: alone.id }]);
});

test("occurrence_threshold fires when the count reaches the value, once", async () => {
  const world = await startWorld();
  const rule = world.rule({ type: "occurrence_threshold", value: 5 });
  const issue = world.issues.fail("org-a");
  for (let i = 2; i <= 4; i++) world.issues.fail("org-a", {}, issue.id);
  expect(world.firings(rule)).toEqual([]);
  world.issues.fail("org-a", {}, issue.id);
  expect(world.firings(rule)).toEqual([{ issue_id: issue.id }]);
  for (let i = 6; i <= 20; i++) world.issues.fail("org-a", {}, issue.id);
  expect(world.firings(rule)).toHaveLength(1);
  await pollUntil(() => sentTo(rule).length === 1, { what: "the alert at the sink" });
  expect(message(rule).text).toContain("Issue reached 5 failures");
  expect(message(rule).text).toContain("5 failures since");
});

test("high_priority_destination fires for issues on a high-priority destination only", async () => {
  const world = await startWorld();
  const rule = world.rule({ type: "high_priority_destination", value: null });
  world.issues.fail("org-a", { destinationPriority: "normal" });
  expect(world.firings(rule)).toEqual([]);
  const urgent = world.issues.fail("org-a", {
    destinationPriority: "high",
    destinationName: "Ledger",
  });
  world.issues.fail("org-a", {}, urgent.id);
  expect(world.firings(rule)).toEqual([{ issue_id: urgent.id }]);
  await pollUntil(() => sentTo(rule).length === 1, { what: "the alert at the sink" });
  expect(message(rule).text).toContain("High-priority destination failing: Ledger");
});

test("500 failures of one issue: one alert per rule, sent once", async () => {
  const world = await startWorld();
  const created = world.rule({ type: "issue_created", value: null });
  const threshold = world.rule({ type: "occurrence_threshold", value: 100 });
  const issue = world.issues.fail("org-a");
  for (let i = 1; i < 500; i++) world.issues.fail("org-a", {}, issue.id);
  expect(world.firings(created)).toHaveLength(1);
  expect(world.firings(threshold)).toHaveLength(1);
  await pollUntil(() => sentTo(created).length === 1 && sentTo(threshold).length === 1, {
    what: "both alerts at the sink",
  });
  const deliveries = world.deps.db.sqlite
    .query<{ n: number }, []>("SELECT count(*) AS n FROM deliveries WHERE kind = 'alert'")
    .get();
  expect(deliveries?.n).toBe(2);
});

test("a disabled rule and another organization's rule do not fire", async () => {
  const world = await startWorld();
  const disabled = world.rule({ type: "issue_created", value: null }, { enabled: false });
  const theirs = world.rule({ type: "issue_created", value: null }, { organizationId: "org-b" });
  const mine = world.rule({ type: "issue_created", value: null });
  world.issues.fail("org-a");
  expect(world.firings(disabled)).toEqual([]);
  expect(world.firings(theirs)).toEqual([]);
  expect(world.firings(mine)).toHaveLength(1);
});

test("a changed condition may fire again for the same issue; the same one never does", async () => {
  const world = await startWorld();
  const rule = world.rule({ type: "occurrence_threshold", value: 2 });
  const issue = world.issues.fail("org-a");
  world.issues.fail("org-a", {}, issue.id);
  expect(world.firings(rule)).toHaveLength(1);
  world.deps.db.sqlite.run("UPDATE alert_rules SET condition_value = 3 WHERE id = ?", [rule]);
  world.issues.fail("org-a", {}, issue.id);
  world.issues.fail("org-a", {}, issue.id);
  expect(world.firings(rule)).toHaveLength(2);
});

test("the alert commits with the failure that caused it, or not at all", async () => {
  const world = await startWorld();
  const rule = world.rule({ type: "issue_created", value: null });
  expect(() => world.issues.fail("org-a", {}, undefined, { abort: true })).toThrow(
    "recording the attempt failed",
  );
  expect(world.firings(rule)).toEqual([]);
  const deliveries = world.deps.db.sqlite
    .query<{ n: number }, []>("SELECT count(*) AS n FROM deliveries WHERE kind = 'alert'")
    .get();
  expect(deliveries?.n).toBe(0);
  const issue = world.issues.fail("org-a");
  expect(world.firings(rule)).toEqual([{ issue_id: issue.id }]);
});

test("open_for_days: the scheduler fires once an issue has been open that long (fake clock)", async () => {
  const world = await startWorld();
  const rule = world.rule({ type: "open_for_days", value: 2 });
  const longer = world.rule({ type: "open_for_days", value: 3 });
  const issue = world.issues.fail("org-a");
  const closed = world.issues.fail("org-a");
  world.issues.close(closed.id);
  world.clock.advance(2 * DAY - 1);
  await world.scheduler.run(OPEN_FOR_DAYS_JOB);
  expect(world.firings(rule)).toEqual([]);
  world.clock.advance(1);
  await world.scheduler.run(OPEN_FOR_DAYS_JOB);
  expect(world.firings(rule)).toEqual([{ issue_id: issue.id }]);
  expect(world.firings(longer)).toEqual([]);
  await world.scheduler.run(OPEN_FOR_DAYS_JOB);
  expect(world.firings(rule)).toHaveLength(1);
  world.clock.advance(DAY);
  await world.scheduler.run(OPEN_FOR_DAYS_JOB);
  expect(world.firings(longer)).toEqual([{ issue_id: issue.id }]);
  expect(world.scheduler.patterns()[OPEN_FOR_DAYS_JOB]).toBe("*/10 * * * *");
  await pollUntil(() => sentTo(rule).length === 1, { what: "the alert at the sink" });
  expect(message(rule).text).toContain("Issue open for 2 days");
});
