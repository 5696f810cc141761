import { afterEach, expect, test } from "bun:test";
import type { Transact } from "../db/db.group-commit.ts";
import type { OutboundResult } from "../http/outbound/outbound.model.ts";
import type { Sandbox } from "../sandbox/sandbox.model.ts";
import { createIds } from "../shared/ids.ts";
import { createLogger } from "../shared/logger.ts";
import { DEFAULT_PLANS } from "../shared/plans.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { pollUntil } from "../test-utils/poll.ts";
import {
  insertCapturedRequest,
  insertEndpoint,
  insertOrganization,
} from "../test-utils/requests-fixtures.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import type { ActionResult } from "./actions.model.ts";
import { createRunRecorder } from "./actions.recorder.ts";
import { createActionsRepo } from "./actions.repo.ts";
import { createActionRuns } from "./actions.runs.ts";
import { createActionsSqliteStore } from "./actions.sqlite.ts";

const dbs: TestDb[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.destroy();
});

type RunsDeps = Parameters<typeof createActionRuns>[0];

/**
 * A fresh database with endpoint "ep" of organization "org", removed after the test, and a
 * maker of runners over it: `own` gives what the test looks at, the rest is filled in.
 */
function endpointDb() {
  const db = createTestDb();
  dbs.push(db);
  insertOrganization(db, "org");
  insertEndpoint(db, { id: "ep", slug: "hook", organizationId: "org" });
  const repo = createActionsRepo(db);
  const runsWith = ({
    recordTx = (fn) => db.tx(fn),
    ...own
  }: Pick<RunsDeps, "outbound" | "completed"> & Partial<RunsDeps> & { recordTx?: Transact }) =>
    createActionRuns({
      store: createActionsSqliteStore(db),
      repo,
      recorder: (hooks) => createRunRecorder({ ...hooks, repo, tx: recordTx }),
      clock: createFakeClock(),
      ids: createIds(),
      logger: createLogger({ level: "error", write: () => {} }),
      plans: DEFAULT_PLANS,
      budgetMs: 60_000,
      sandbox: {} as Sandbox,
      scriptCpuMs: 1000,
      resolveSecrets: async () => () => undefined,
      ...own,
    });
  return { db, repo, runsWith };
}

test("past the waiting bound a capture's run is recorded as skipped instead of queued", async () => {
  const { db, repo, runsWith } = endpointDb();
  repo.insert({
    id: "a1",
    organizationId: "org",
    endpointId: "ep",
    type: "http_request",
    name: "slow",
    config: { url: "http://sink.test/", method: "POST" },
    position: 0,
    enabled: true,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
  });
  // The sender holds every request until the test lets them go.
  const held: (() => void)[] = [];
  const answered: OutboundResult = {
    url: "http://sink.test/",
    status: 200,
    headers: [],
    body: new Uint8Array(),
    bodyTruncated: false,
    latencyMs: 1,
    error: null,
  };
  const recorded: [string, ActionResult[]][] = [];
  const runs = runsWith({
    outbound: {
      send: () => new Promise((resolve) => held.push(() => resolve(answered))),
      urlProblem: () => null,
    },
    completed: (_endpointId, requestId, results) => recorded.push([requestId, results]),
    maxWaitingRuns: 2,
  });
  const endpoint = { id: "ep", organizationId: "org", plan: "team" as const };
  for (const id of ["r1", "r2", "r3"]) {
    const request = insertCapturedRequest(db, { id, endpointId: "ep" });
    expect(await runs.onCapture({ request, endpoint })).toBeNull();
  }
  // r1 runs, r2 waits: r3 is over the bound and is recorded at once, skipped.
  await pollUntil(() => recorded.length === 1, { what: "r3 recorded" });
  expect(recorded.map(([id, results]) => `${id}:${results[0]?.status}`)).toEqual(["r3:skipped"]);
  expect(recorded[0]?.[1][0]?.output).toEqual({ reason: "too_many_runs_waiting" });
  await pollUntil(() => held.length === 1, { what: "r1 sending" });
  held.shift()?.();
  await pollUntil(() => held.length === 1, { what: "r2 sending" });
  held.shift()?.();
  await pollUntil(() => recorded.length === 3, { what: "all runs recorded" });
  expect(recorded.map(([id, results]) => `${id}:${results[0]?.status}`)).toEqual([
    "r3:skipped",
    "r1:ok",
    "r2:ok",
  ]);
});

test("a capture runs at most the plan's number of actions, and none on a plan without them", async () => {
  const { db, repo, runsWith } = endpointDb();
  for (const position of [0, 1, 2]) {
    repo.insert({
      id: `a${position}`,
      organizationId: "org",
      endpointId: "ep",
      type: "store_variable",
      name: `n${position}`,
      config: { name: `v${position}`, value: position },
      position,
      enabled: true,
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
    });
  }
  const recorded: ActionResult[][] = [];
  const runs = runsWith({
    plans: { ...DEFAULT_PLANS, team: { ...DEFAULT_PLANS.team, actions_per_endpoint: 2 } },
    outbound: { send: () => Promise.reject(new Error("not used")), urlProblem: () => null },
    completed: (_endpointId, _requestId, results) => recorded.push(results),
  });
  const request = insertCapturedRequest(db, { id: "r1", endpointId: "ep" });
  await runs.onCapture({ request, endpoint: { id: "ep", organizationId: "org", plan: "team" } });
  await pollUntil(() => recorded.length === 1, { what: "the run" });
  expect(recorded[0]?.map((r) => r.action_id)).toEqual(["a0", "a1"]);
  expect(repo.variables("ep")).toEqual({ v0: 0, v1: 1 });
  const onFree = insertCapturedRequest(db, { id: "r2", endpointId: "ep" });
  const free = { id: "ep", organizationId: "org", plan: "free" as const };
  expect(await runs.onCapture({ request: onFree, endpoint: free })).toBeNull();
  // Runs of an endpoint go in order: once r3's is recorded, one for r2 would have been too.
  const next = insertCapturedRequest(db, { id: "r3", endpointId: "ep" });
  await runs.onCapture({
    request: next,
    endpoint: { id: "ep", organizationId: "org", plan: "team" },
  });
  await pollUntil(() => recorded.length === 2, { what: "r3's run" });
  expect(repo.lastRun("r2")).toBeNull();
  expect(repo.lastRun("r3")).toHaveLength(2);
});

test("the records of runs finished in one turn commit in one transaction, and the next run reads the values before they commit", async () => {
  const { db, repo, runsWith } = endpointDb();
  repo.insert({
    id: "a1",
    organizationId: "org",
    endpointId: "ep",
    type: "store_variable",
    name: "last",
    config: { name: "last", value: "$request.method$ after $last$" },
    position: 0,
    enabled: true,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
  });
  let transactions = 0;
  const recorded: string[] = [];
  const runs = runsWith({
    recordTx: (fn) => {
      transactions += 1;
      return db.tx(fn);
    },
    outbound: { send: () => Promise.reject(new Error("not used")), urlProblem: () => null },
    completed: (_endpointId, requestId) => recorded.push(requestId),
  });
  const endpoint = { id: "ep", organizationId: "org", plan: "team" as const };
  const ids = Array.from({ length: 20 }, (_, i) => `r${i}`);
  for (const id of ids) {
    const request = insertCapturedRequest(db, { id, endpointId: "ep" });
    await runs.onCapture({ request, endpoint });
  }
  await pollUntil(() => recorded.length === ids.length, { what: "every run recorded" });
  expect(recorded).toEqual(ids);
  expect(transactions).toBeLessThan(ids.length / 2);
  // Each run read the value the one before it stored, committed or not yet.
  expect(String(repo.variables("ep").last).split(" after ")).toHaveLength(ids.length + 1);
});

test("a condition without templates is compiled once; one with templates still reads each run's values", async () => {
  const { db, repo, runsWith } = endpointDb();
  const action = (id: string, position: number, type: string, config: Record<string, unknown>) =>
    repo.insert({
      id,
      organizationId: "org",
      endpointId: "ep",
      type: type as "condition",
      name: id,
      config,
      position,
      enabled: true,
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
    });
  action("fixed", 0, "condition", { "body.n": { $gte: 1 } });
  action("changed", 1, "condition", { $not: { "body.n": { $eq: "$last$" } } });
  action("keep", 2, "store_variable", { name: "last", value: "$request.body.n$" });
  const recorded: ActionResult[][] = [];
  const runs = runsWith({
    outbound: { send: () => Promise.reject(new Error("not used")), urlProblem: () => null },
    completed: (_endpointId, _requestId, results) => recorded.push(results),
  });
  const endpoint = { id: "ep", organizationId: "org", plan: "team" as const };
  for (const [i, n] of [1, 1, 2].entries()) {
    const request = insertCapturedRequest(db, {
      id: `r${i}`,
      endpointId: "ep",
      method: "POST",
      body: new TextEncoder().encode(JSON.stringify({ n })),
    });
    await runs.onCapture({ request, endpoint });
  }
  await pollUntil(() => recorded.length === 3, { what: "three runs" });
  const matched = (results: ActionResult[] | undefined, index: number) =>
    (results?.[index]?.output as { matched?: boolean } | null)?.matched;
  expect(recorded.map((results) => matched(results, 0))).toEqual([true, true, true]);
  expect(recorded.map((results) => matched(results, 1))).toEqual([true, false, true]);
});

test("a failed batch of records stores nothing, and later runs read the committed variables again", async () => {
  const { db, repo, runsWith } = endpointDb();
  repo.insert({
    id: "a1",
    organizationId: "org",
    endpointId: "ep",
    type: "store_variable",
    name: "trail",
    config: { name: "trail", value: "$request.body.n$<$trail$" },
    position: 0,
    enabled: true,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
  });
  let attempts = 0;
  const recorded: string[] = [];
  const runs = runsWith({
    recordTx: (fn) => {
      attempts += 1;
      if (attempts === 1) throw new Error("disk full");
      return db.tx(fn);
    },
    outbound: { send: () => Promise.reject(new Error("not used")), urlProblem: () => null },
    completed: (_endpointId, requestId) => recorded.push(requestId),
  });
  const endpoint = { id: "ep", organizationId: "org", plan: "team" as const };
  const capture = (id: string, n: number) =>
    runs.onCapture({
      request: insertCapturedRequest(db, { id, endpointId: "ep", body: JSON.stringify({ n }) }),
      endpoint,
    });
  await capture("r1", 1);
  await capture("r2", 2);
  await pollUntil(() => attempts === 1, { what: "the failed batch" });
  await capture("r3", 3);
  await pollUntil(() => recorded.length === 1, { what: "r3 recorded" });
  expect(recorded).toEqual(["r3"]);
  expect(repo.lastRun("r1")).toBeNull();
  expect(repo.lastRun("r2")).toBeNull();
  // r3 started from what was committed (nothing), not from what the failed runs stored.
  expect(repo.variables("ep")).toEqual({ trail: "3<" });
});
