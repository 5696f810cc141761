import { afterAll, expect, test } from "bun:test";
import { Elysia } from "elysia";
import type { AuthPorts } from "../auth/auth.room.ts";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { createPostgresOutboxPorts } from "../delivery/delivery.outbox.postgres.ts";
import { createDeliveryPostgresStore } from "../delivery/delivery.postgres.ts";
import { createOutboundPolicy } from "../http/outbound/outbound.policy.ts";
import { createOutboundSender } from "../http/outbound/outbound.sender.ts";
import { loadConfig } from "../shared/config.ts";
import { createIds } from "../shared/ids.ts";
import { createLogger } from "../shared/logger.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { issuesNode, seedDelivery, seedRoute } from "../test-utils/issues-observer.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { openMigratedPgDatabase } from "../test-utils/postgres-migrated.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { createAlertsPostgresStore } from "./alerts.postgres.ts";
import { NO_SECRETS } from "./alerts.repo.ts";
import { createAlertsRoom } from "./alerts.room.ts";

// Alerts on issues on PostgreSQL, heard the way the delivery room tells the issues room of an
// attempt: inside the `sql.begin` transaction that records it, on two nodes with pools of their
// own. However the first failures race, a rule fires once per issue.

const pools: PostgresDb[] = [];
afterAll(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});
const databases = usePgDatabases();
const tempDir = useTempDirs("weir-alerts-issues-pg-");
const at = (second: number) => new Date(Date.UTC(2026, 5, 1, 0, 0, second)).toISOString();

test("two nodes recording the first failures of one pattern at once raise one alert, written with the issue", async () => {
  const pg = await openMigratedPgDatabase(databases, { poolSize: 4 });
  pools.push(pg);
  const route = await seedRoute(pg.sql, "org", "dest");
  const clock = createFakeClock(Date.UTC(2026, 5, 1));
  const logger = createLogger({ level: "error", write: () => {} });
  const dataDir = tempDir();
  const { config } = loadConfig({ env: {}, flags: { data_dir: dataDir } });
  const policy = createOutboundPolicy({ deny: [], allow: [] });
  const nodes: ReturnType<typeof issuesNode>[] = [];
  for (let i = 0; i < 2; i++) {
    const own = await openPostgres(pg.url, { poolSize: 4 });
    pools.push(own);
    const issues = issuesNode(own, [route], { dataDir, logger, clock });
    const ids = createIds();
    const delivery = createPostgresOutboxPorts(
      { clock, ids, postgres: own },
      createDeliveryPostgresStore(own),
      new Map(),
      [],
      () => ({ queue: { notifyAll() {} }, breakerOpen: () => false, probeNow: async () => {} }),
    );
    createAlertsRoom(
      {
        postgres: own,
        clock,
        ids,
        logger,
        config,
        outbound: createOutboundSender({ policy, timeoutMs: 1000 }),
        secretKey: new Uint8Array(32).fill(7),
      },
      {
        guard: (() => new Elysia()) as unknown as AuthPorts["guard"],
        delivery,
        issues: issues.room.ports,
      },
    );
    nodes.push(issues);
  }
  await createAlertsPostgresStore(pg).insertRule({
    rule: {
      id: "rule-1",
      organizationId: "org",
      name: "new issues",
      condition: { type: "issue_created", value: null },
      channelType: "slack",
      channel: { webhook_url: "https://hooks.example.com/x" },
      enabled: true,
      createdAt: at(0),
      updatedAt: at(0),
    },
    secrets: NO_SECRETS,
  });
  const deliveries = await Promise.all(
    Array.from({ length: 6 }, (_, i) => seedDelivery(pg.sql, `d${i}`, route)),
  );
  await Promise.all(
    deliveries.map((delivery, i) =>
      nodes[i % 2]?.attempt(delivery, { status: 500, at: at(i + 1) }),
    ),
  );
  const issues = await pg.sql`SELECT id FROM issues`;
  const firings = await pg.sql`SELECT id, issue_id FROM alert_firings`;
  const alerts = await pg.sql`SELECT subject_id FROM deliveries WHERE kind = 'alert'`;
  expect(issues.length).toBe(1);
  expect(firings.map((f: { issue_id: string }) => f.issue_id)).toEqual([issues[0].id]);
  expect(alerts.map((a: { subject_id: string }) => a.subject_id)).toEqual([firings[0].id]);
});
