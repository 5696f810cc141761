import { afterEach, expect, test } from "bun:test";
import {
  insertCapturedRequest,
  insertEndpoint,
  insertOrganization,
} from "../test-utils/requests-fixtures.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import { createRunRecorder, type RunRecord } from "./actions.recorder.ts";
import { createActionsRepo } from "./actions.repo.ts";

const dbs: TestDb[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.destroy();
});

/** One more than a batch holds: the last record commits in a batch of its own. */
const RECORDS = 501;

test("a record that read values of a failed batch is not written, even in a later batch that commits", async () => {
  const db = createTestDb();
  dbs.push(db);
  insertOrganization(db, "org");
  insertEndpoint(db, { id: "ep", slug: "hook", organizationId: "org" });
  const repo = createActionsRepo(db);
  let attempts = 0;
  const committed: string[] = [];
  const recorder = createRunRecorder({
    repo,
    tx: (fn) => {
      attempts += 1;
      if (attempts === 1) throw new Error("disk full");
      return db.tx(fn);
    },
    committed: (record) => committed.push(record.requestId),
    onHookError: () => {},
  });
  const outcomes: Promise<boolean>[] = [];
  for (let i = 0; i < RECORDS; i++) {
    const requestId = `r${i}`;
    insertCapturedRequest(db, { id: requestId, endpointId: "ep" });
    // Each run reads what the runs before it stored, as the runs of one endpoint do.
    const { values, generation } = recorder.variablesOf("ep");
    const record: RunRecord = {
      id: `run-${i}`,
      requestId,
      endpointId: "ep",
      trigger: "capture",
      results: [],
      stores: [{ name: "count", value: (Number(values.count) || 0) + 1 }],
      createdAt: "2026-01-01T00:00:00.000Z",
      generation,
    };
    outcomes.push(recorder.submit(record).catch(() => false));
  }
  const settled = await Promise.all(outcomes);
  expect(attempts).toBe(2);
  expect(settled.filter(Boolean)).toHaveLength(0);
  expect(committed).toEqual([]);
  expect(repo.variables("ep")).toEqual({});
  // The next run starts from the committed values again.
  expect(recorder.variablesOf("ep").values).toEqual({});
});
