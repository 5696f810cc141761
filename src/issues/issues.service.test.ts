import { afterEach, beforeEach, expect, test } from "bun:test";
import { AppError } from "../shared/errors.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import { applyOccurrence, type FailurePattern } from "./issues.model.ts";
import type { IssueRecord } from "./issues.ports.ts";
import { createIssuesRepo, type IssuesRepo } from "./issues.repo.ts";
import { changeIssueStatus, type IssuesDeps } from "./issues.service.ts";
import { createIssuesSqliteStore } from "./issues.sqlite.ts";

let db: TestDb;
let repo: IssuesRepo;
const clock = createFakeClock(Date.UTC(2026, 5, 1));
const pattern: FailurePattern = {
  organizationId: "org",
  bridgeId: "bridge",
  destinationId: "destination",
  errorType: "http_error",
  errorCode: "500",
};
const newIssue = (id: string): IssueRecord =>
  applyOccurrence(
    null,
    { pattern, message: "HTTP 500", at: new Date(clock.now()).toISOString() },
    { id, now: new Date(clock.now()).toISOString() },
  ).issue;

beforeEach(() => {
  db = createTestDb();
  // The pattern's organization and destination belong to other rooms; this test is about issues.
  db.sqlite.run("PRAGMA foreign_keys = OFF");
  repo = createIssuesRepo(db);
});
afterEach(() => db.destroy());

test("SQL refuses a second issue that is not closed for one pattern; a closed one does not count", () => {
  repo.insert(newIssue("a"));
  expect(() => repo.insert(newIssue("b"))).toThrow(/UNIQUE/);
  repo.insert({ ...newIssue("c"), status: "closed", resolvedAt: "2026-06-01T00:00:00.000Z" });
  repo.insert({ ...newIssue("d"), errorCode: "503" });
  expect(repo.findUnclosed(pattern)?.id).toBe("a");
});

test("reopening by PATCH while the pattern already has an open issue is a 409 that changes nothing", async () => {
  repo.insert({ ...newIssue("old"), status: "closed", resolvedAt: "2026-06-01T00:00:00.000Z" });
  repo.insert(newIssue("current"));
  const deps: IssuesDeps = {
    store: createIssuesSqliteStore(db),
    clock,
    describeDestination: () => null,
  };
  let refused: unknown;
  try {
    await changeIssueStatus("org", "old", { status: "open" }, deps);
  } catch (error) {
    refused = error;
  }
  expect(refused).toBeInstanceOf(AppError);
  expect([(refused as AppError).status, (refused as AppError).code]).toEqual([
    409,
    "issue_already_open",
  ]);
  expect(repo.find("org", "old")?.status).toBe("closed");
  expect((await changeIssueStatus("org", "current", { status: "closed" }, deps)).status).toBe(
    "closed",
  );
  expect((await changeIssueStatus("org", "old", { status: "work_in_progress" }, deps)).status).toBe(
    "work_in_progress",
  );
});
