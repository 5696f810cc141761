/**
 * A node recording failed delivery attempts on PostgreSQL as fast as it can, each in its own
 * transaction with the issues room's observer, for the kill -9 test
 * (src/issues/issues.crash.postgres.test.ts). Every few attempts a worker closes its pattern's
 * issue, so the next failure reopens it.
 *   bun src/test-utils/issues-observer-child.ts <database-url> <data-dir> <workers>
 */
import { openPostgres } from "../db/db.postgres.ts";
import { applyStatusChange } from "../issues/issues.model.ts";
import { createIssuesPostgresStore } from "../issues/issues.postgres.ts";
import { isoAt } from "../shared/clock.ts";
import { issuesNode, seedDelivery } from "./issues-observer.ts";

const [url, dataDir, workersText] = process.argv.slice(2);
if (!url || !dataDir || !workersText) {
  console.error("usage: issues-observer-child.ts <database-url> <data-dir> <workers>");
  process.exit(2);
}
const route = {
  organizationId: "org",
  bridgeId: "bridge-dest",
  destinationId: "dest",
  bridgeName: "Orders",
  sourceName: "source-dest",
  destinationName: "Billing",
  destinationType: "http" as const,
  destinationPriority: "high" as const,
};
const pg = await openPostgres(url, { poolSize: 8 });
const node = issuesNode(pg, [route], { dataDir });
const store = createIssuesPostgresStore(pg);
const STATUSES = [500, 503, 200];

async function work(worker: number): Promise<never> {
  const delivery = await seedDelivery(pg.sql, `d-${process.pid}-${worker}`, route);
  for (let n = 0; ; n++) {
    const status = STATUSES[n % STATUSES.length] ?? 500;
    await node.attempt(delivery, { status, at: isoAt(Date.now()) });
    if (n % 25 === 24) {
      for (const issue of await store.listUnclosedOfDestination("org", "dest")) {
        await store.changeStatus("org", issue.id, (i) =>
          applyStatusChange(i, "closed", isoAt(Date.now())),
        );
      }
    }
  }
}

await Promise.all(Array.from({ length: Number(workersText) }, (_, i) => work(i)));
