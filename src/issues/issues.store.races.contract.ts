import { describe, expect, test } from "bun:test";
import { applyStatusChange } from "./issues.model.ts";
import type { IssueStatus } from "./issues.ports.ts";
import {
  at,
  counts,
  failure,
  fresh,
  type IssuesStoreFixture,
  issuesWorld,
} from "./issues.store.contract.ts";
import type { IssuesStore } from "./issues.store.ts";

/** What every IssuesStore gives when several nodes write one organization's issues at once. */
export function describeIssuesStoreRaces(name: string, make: () => Promise<IssuesStoreFixture>) {
  describe(`IssuesStore races on ${name}`, () => {
    test("nodes recording the first failures of one pattern at once make one issue, and its count adds them all up", async () => {
      const { store, otherNodes, a } = await issuesWorld(make);
      const nodes = [store, ...(await otherNodes(3))];
      const perNode = 6;
      const changes = await Promise.all(
        nodes.flatMap((node) =>
          Array.from({ length: perNode }, (_, i) => node.recordFailure(failure(a, i), fresh(i))),
        ),
      );
      expect(changes.filter((c) => c.kind === "created")).toHaveLength(1);
      const [issue, ...more] = await store.listUnclosedOfDestination("org-a", "dest-a");
      expect(more).toEqual([]);
      expect(issue?.occurrenceCount).toBe(nodes.length * perNode);
      expect([...new Set(changes.map((c) => c.issue.id))]).toEqual([issue?.id ?? ""]);
      expect(await counts(store)).toEqual({ open: 1, work_in_progress: 0, closed: 0 });
    });

    test("reopening by PATCH while the pattern has another unclosed issue is refused and changes nothing, whichever node asks", async () => {
      const { store, otherNodes, run, a } = await issuesWorld(make);
      const current = (await store.recordFailure(failure(a, 1), fresh(1))).issue;
      // An older closed issue of the same pattern (failures reopen the latest closed one, so
      // no failure makes two): written as a row.
      await run(
        `INSERT INTO issues (id, organization_id, bridge_id, destination_id, status, error_type,
           error_code, error_message, occurrence_count, first_occurrence_at, last_occurrence_at,
           opened_at, resolved_at, last_success_at, created_at, updated_at)
         VALUES ('issue-old', $1, $2, $3, 'closed', $4, $5, 'old', 1, $6, $6, $6, $6, NULL, $6, $6)`,
        [a.organizationId, a.bridgeId, a.destinationId, a.errorType, a.errorCode, at(0)],
      );
      const move = (node: IssuesStore, id: string, status: IssueStatus, minute: number) =>
        node.changeStatus("org-a", id, (i) => applyStatusChange(i, status, at(minute)));
      expect(await move(store, "issue-old", "open", 2)).toEqual({ outcome: "already_open" });
      expect(await move(store, "issue-old", "work_in_progress", 2)).toEqual({
        outcome: "already_open",
      });
      expect(await store.find("org-a", "issue-old")).toMatchObject({ status: "closed" });
      expect(await move(store, current.id, "closed", 3)).toMatchObject({ outcome: "changed" });

      // Both closed: two nodes reopening one each at once, one wins.
      const [one, two] = await otherNodes(2);
      if (!one || !two) throw new Error("two nodes");
      const both = await Promise.all([
        move(one, "issue-old", "open", 4),
        move(two, current.id, "open", 4),
      ]);
      expect(both.map((r) => r.outcome).sort()).toEqual(["already_open", "changed"]);
      expect(await store.listUnclosedOfDestination("org-a", "dest-a")).toHaveLength(1);
      expect(await counts(store)).toEqual({ open: 1, work_in_progress: 0, closed: 1 });
    });

    test("nodes closing, reopening, counting and marking successes at once all finish, and the status counts match the issues", async () => {
      const { store, otherNodes, a } = await issuesWorld(make);
      const nodes = [store, ...(await otherNodes(3))];
      const node = (i: number) => nodes[i % nodes.length] as IssuesStore;
      const patterns = ["500", "502", "503"].map((errorCode) => ({ ...a, errorCode }));
      const ids: string[] = [];
      for (const p of patterns)
        ids.push((await store.recordFailure(failure(p, 0), fresh(0))).issue.id);
      const close = (n: number, id: string, minute: number) =>
        node(n).changeStatus("org-a", id, (i) => applyStatusChange(i, "closed", at(minute)));
      for (let round = 1; round <= 8; round++) {
        // Each pattern closed by one node while another's failure reopens the next one.
        await Promise.all(
          patterns.flatMap((p, i) => [
            close(i + round, ids[i] ?? "", round),
            node(i + round + 1).recordFailure(failure(p, round), fresh(round)),
            node(i + round + 2).recordSuccess("dest-a", at(round), at(round)),
          ]),
        );
      }
      const all = (await store.list("org-a", {}, { limit: 100, offset: 0 })).items;
      expect(all).toHaveLength(3);
      const byStatus = { open: 0, work_in_progress: 0, closed: 0 };
      for (const issue of all) byStatus[issue.status] += 1;
      expect(await counts(store)).toEqual(byStatus);
      expect(all.map((i) => i.occurrenceCount)).toEqual([9, 9, 9]);
    });
  });
}
