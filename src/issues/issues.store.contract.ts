import { describe, expect, test } from "bun:test";
import { applyStatusChange, type FailurePattern } from "./issues.model.ts";
import type { IssueStatus } from "./issues.ports.ts";
import type { IssuesStore, RecordedFailure } from "./issues.store.ts";

/** What one contract test runs over: a fresh store, and the rows issues hang off. */
export interface IssuesStoreFixture {
  store: IssuesStore;
  /** Stores of other nodes on the same database (each its own connections where it can). */
  otherNodes(n: number): Promise<IssuesStore[]>;
  addOrganizations(ids: string[]): Promise<void>;
  /** A bridge of the organization with one destination of this id; returns the bridge's id. */
  addDestination(organizationId: string, destinationId: string): Promise<string>;
  /** Runs SQL with `$1`-style parameters (for rows no store method writes). */
  run(sql: string, params?: unknown[]): Promise<unknown>;
}

export const at = (minute: number) => new Date(Date.UTC(2026, 5, 1, 0, minute)).toISOString();

let attempts = 0;

/** A failed attempt of the pattern at `minute`, with an attempt id of its own. */
export function failure(
  pattern: FailurePattern,
  minute: number,
  message = "HTTP 500",
): RecordedFailure {
  attempts += 1;
  return {
    pattern,
    attemptId: `attempt-${String(attempts).padStart(6, "0")}`,
    eventId: `event-${attempts}`,
    deliveryId: `delivery-${attempts}`,
    attempt: 1,
    statusCode: 500,
    responseExcerpt: "down",
    message,
    occurredAt: at(minute),
  };
}

let ids = 0;
export const fresh = (minute: number) => ({
  id: `issue-${String(++ids).padStart(6, "0")}`,
  now: at(minute),
});

export async function counts(store: IssuesStore): Promise<Record<IssueStatus, number>> {
  const out = { open: 0, work_in_progress: 0, closed: 0 };
  for (const { status, n } of await store.countByStatus()) out[status] = n;
  return out;
}

/** Two organizations, each with one destination: patterns of http_error/500 on them. */
export async function issuesWorld(make: () => Promise<IssuesStoreFixture>) {
  const fixture = await make();
  await fixture.addOrganizations(["org-a", "org-b"]);
  const pattern = async (organizationId: string, destinationId: string) => ({
    organizationId,
    destinationId,
    bridgeId: await fixture.addDestination(organizationId, destinationId),
    errorType: "http_error",
    errorCode: "500",
  });
  return {
    ...fixture,
    a: await pattern("org-a", "dest-a"),
    b: await pattern("org-b", "dest-b"),
  };
}

/** The behaviour every IssuesStore gives, whichever database holds it. */
export function describeIssuesStore(name: string, make: () => Promise<IssuesStoreFixture>) {
  describe(`IssuesStore on ${name}`, () => {
    test("a first failure opens an issue; the next ones of its pattern count on it; another code is another issue", async () => {
      const { store, a } = await issuesWorld(make);
      const first = await store.recordFailure(failure(a, 1, "first"), fresh(1));
      expect(first.kind).toBe("created");
      expect(first.issue).toMatchObject({
        status: "open",
        occurrenceCount: 1,
        errorMessage: "first",
        firstOccurrenceAt: at(1),
        lastOccurrenceAt: at(1),
        openedAt: at(1),
        resolvedAt: null,
        lastSuccessAt: null,
      });
      const second = await store.recordFailure(failure(a, 3, "second"), fresh(3));
      // An older attempt committed late keeps the latest occurrence time.
      const late = await store.recordFailure(failure(a, 2, "late"), fresh(4));
      expect([second.kind, late.kind]).toEqual(["occurred", "occurred"]);
      expect(late.issue.id).toBe(first.issue.id);
      expect(await store.find("org-a", first.issue.id)).toEqual({
        ...first.issue,
        occurrenceCount: 3,
        errorMessage: "late",
        lastOccurrenceAt: at(3),
        updatedAt: at(4),
      });
      const other = await store.recordFailure(failure({ ...a, errorCode: "503" }, 5), fresh(5));
      expect(other.kind).toBe("created");
      expect(await counts(store)).toEqual({ open: 2, work_in_progress: 0, closed: 0 });
    });

    test("another organization's issue is never read nor changed", async () => {
      const { store, a, b } = await issuesWorld(make);
      const ofA = (await store.recordFailure(failure(a, 1), fresh(1))).issue;
      await store.recordFailure(failure(b, 1), fresh(1));
      expect(await store.find("org-b", ofA.id)).toBeNull();
      expect((await store.list("org-b", {}, { limit: 10, offset: 0 })).items).toHaveLength(1);
      expect(
        (await store.list("org-b", { destinationId: "dest-a" }, { limit: 10, offset: 0 })).total,
      ).toBe(0);
      expect(await store.listUnclosedOfDestination("org-b", "dest-a")).toEqual([]);
      const oldB = await store.listUnclosedOpenedBefore("org-b", at(59), 10);
      expect(oldB.map((i) => i.organizationId)).toEqual(["org-b"]);
      const patched = await store.changeStatus("org-b", ofA.id, (issue) =>
        applyStatusChange(issue, "closed", at(2)),
      );
      expect(patched).toEqual({ outcome: "not_found" });
      expect(await store.find("org-a", ofA.id)).toEqual(ofA);
    });

    test("lifecycle: work in progress keeps counting; closed reopens on the next failure; PATCH refuses a second unclosed issue", async () => {
      const { store, a } = await issuesWorld(make);
      const opened = (await store.recordFailure(failure(a, 1), fresh(1))).issue;
      const move = (id: string, status: IssueStatus, minute: number) =>
        store.changeStatus("org-a", id, (issue) => applyStatusChange(issue, status, at(minute)));
      expect(await move(opened.id, "open", 2)).toEqual({ outcome: "unchanged", issue: opened });
      const wip = await move(opened.id, "work_in_progress", 2);
      expect(wip).toMatchObject({ outcome: "changed", issue: { status: "work_in_progress" } });
      const counted = await store.recordFailure(failure(a, 3), fresh(3));
      expect(counted).toMatchObject({ kind: "occurred", issue: { status: "work_in_progress" } });
      const closed = await move(opened.id, "closed", 4);
      expect(closed).toMatchObject({ outcome: "changed", issue: { resolvedAt: at(4) } });
      expect(await store.find("org-a", opened.id)).toMatchObject({ status: "closed" });
      expect(await counts(store)).toEqual({ open: 0, work_in_progress: 0, closed: 1 });

      const reopened = await store.recordFailure(failure(a, 5), fresh(5));
      expect(reopened).toMatchObject({
        kind: "reopened",
        issue: { id: opened.id, status: "open", openedAt: at(5), resolvedAt: null },
      });
      expect(reopened.issue.occurrenceCount).toBe(3);
      await move(opened.id, "closed", 6);
      const next = (await store.recordFailure(failure({ ...a, errorCode: "502" }, 7), fresh(7)))
        .issue;
      // Closed twice: the latest closed issue of the pattern is the one a failure reopens.
      await move(next.id, "closed", 8);
      const newer = (await store.recordFailure(failure(a, 9), fresh(9))).issue;
      expect(newer.id).toBe(opened.id);
      const older = await store.recordFailure(failure({ ...a, errorCode: "502" }, 10), fresh(10));
      expect(older.kind).toBe("reopened");

      expect(await counts(store)).toEqual({ open: 2, work_in_progress: 0, closed: 0 });
    });

    test("a success marks the destination's unclosed issues opened before it, once per later success", async () => {
      const { store, a } = await issuesWorld(make);
      const open = (await store.recordFailure(failure(a, 1), fresh(1))).issue;
      const closed = (await store.recordFailure(failure({ ...a, errorCode: "503" }, 1), fresh(1)))
        .issue;
      await store.changeStatus("org-a", closed.id, (i) => applyStatusChange(i, "closed", at(2)));
      // Before the issue opened: it says nothing of it.
      expect(await store.recordSuccess("dest-a", at(0), at(3))).toBe(0);
      expect(await store.recordSuccess("dest-a", at(5), at(6))).toBe(1);
      expect(await store.recordSuccess("dest-a", at(4), at(7))).toBe(0);
      expect(await store.find("org-a", open.id)).toMatchObject({
        lastSuccessAt: at(5),
        updatedAt: at(6),
      });
      expect((await store.find("org-a", closed.id))?.lastSuccessAt).toBeNull();
    });

    test("pages list the latest occurrence first, filtered, with the total", async () => {
      const { store, a } = await issuesWorld(make);
      const made = [];
      for (const [i, code] of ["500", "501", "502", "503", "504"].entries()) {
        made.push(
          (await store.recordFailure(failure({ ...a, errorCode: code }, i), fresh(i))).issue,
        );
      }
      const [first] = made;
      if (!first) throw new Error("no issue");
      await store.changeStatus("org-a", first.id, (i) => applyStatusChange(i, "closed", at(9)));
      const page = await store.list("org-a", {}, { limit: 2, offset: 1 });
      expect(page.total).toBe(5);
      expect(page.items.map((i) => i.errorCode)).toEqual(["503", "502"]);
      const open = await store.list("org-a", { status: "open" }, { limit: 10, offset: 0 });
      expect(open.items.map((i) => i.errorCode)).toEqual(["504", "503", "502", "501"]);
      const filtered = await store.list(
        "org-a",
        { status: "closed", bridgeId: a.bridgeId, destinationId: "dest-a" },
        { limit: 10, offset: 0 },
      );
      expect(filtered).toEqual({ items: [{ ...first, ...filtered.items[0] }], total: 1 });
      const byDestination = await store.listUnclosedOfDestination("org-a", "dest-a");
      expect(byDestination.map((i) => i.errorCode)).toEqual(["501", "502", "503", "504"]);
      const oldest = await store.listUnclosedOpenedBefore("org-a", at(3), 2);
      expect(oldest.map((i) => i.errorCode)).toEqual(["501", "502"]);
    });

    test("an issue keeps its latest failed attempts, newest first; an attempt is kept once", async () => {
      const { store, a } = await issuesWorld(make);
      let issueId = "";
      const recorded: RecordedFailure[] = [];
      for (let minute = 0; minute < 12; minute++) {
        const f = failure(a, minute);
        recorded.push(f);
        issueId = (await store.recordFailure(f, fresh(minute))).issue.id;
      }
      const latest = await store.samples(issueId, 5);
      expect(latest.map((s) => s.occurredAt)).toEqual([11, 10, 9, 8, 7].map((m) => at(m)));
      const last = recorded[11];
      if (!last) throw new Error("no failure");
      expect(latest[0]).toEqual({
        attemptId: last.attemptId,
        issueId,
        eventId: last.eventId,
        deliveryId: last.deliveryId,
        attempt: 1,
        statusCode: 500,
        responseExcerpt: "down",
        errorType: "http_error",
        errorCode: "500",
        errorMessage: "HTTP 500",
        occurredAt: at(11),
      });
      // Trimmed every five: between five and nine kept.
      expect((await store.samples(issueId, 100)).length).toBeLessThanOrEqual(9);
      await store.recordFailure(last, fresh(12));
      expect(
        (await store.samples(issueId, 100)).filter((s) => s.occurredAt === at(11)),
      ).toHaveLength(1);
    });

    test("retention finds organizations with closed issues and deletes theirs resolved before a cutoff, in batches", async () => {
      const { store, a, b } = await issuesWorld(make);
      const close = async (organizationId: string, id: string, minute: number) =>
        store.changeStatus(organizationId, id, (i) => applyStatusChange(i, "closed", at(minute)));
      const codes = ["500", "501", "502"];
      for (const [i, code] of codes.entries()) {
        const { issue } = await store.recordFailure(
          failure({ ...a, errorCode: code }, i),
          fresh(i),
        );
        await close("org-a", issue.id, 10 + i);
      }
      const stillOpen = (
        await store.recordFailure(failure({ ...a, errorCode: "503" }, 1), fresh(1))
      ).issue;
      const ofB = (await store.recordFailure(failure(b, 1), fresh(1))).issue;
      expect(await store.tenantsWithClosedIssues()).toEqual([{ id: "org-a", plan: "free" }]);
      await close("org-b", ofB.id, 10);
      expect(await store.deleteClosedBefore("org-a", at(12), 1)).toBe(1);
      expect(await store.deleteClosedBefore("org-a", at(12), 10)).toBe(1);
      expect(await store.deleteClosedBefore("org-a", at(12), 10)).toBe(0);
      const left = await store.list("org-a", {}, { limit: 10, offset: 0 });
      expect(left.items.map((i) => i.errorCode).sort()).toEqual(["502", "503"]);
      expect(await store.find("org-a", stillOpen.id)).not.toBeNull();
      expect(await store.find("org-b", ofB.id)).toMatchObject({ status: "closed" });
      expect(await counts(store)).toEqual({ open: 1, work_in_progress: 0, closed: 2 });
    });
  });
}
