import { expect, test } from "bun:test";
import { sqliteStoreDatabase, usePgStoreDatabase } from "../test-utils/store-databases.ts";
import { createBridgesPostgresStore, describeDestinationPostgres } from "./bridges.postgres.ts";
import { createBridgesSqliteStore } from "./bridges.sqlite.ts";
import { describeBridgesStore } from "./bridges.store.contract.ts";

const pgDatabase = usePgStoreDatabase();

describeBridgesStore("SQLite", async () => {
  const { db, ...rest } = await sqliteStoreDatabase();
  return { store: createBridgesSqliteStore(db), ...rest };
});

describeBridgesStore("PostgreSQL", async () => {
  const { db, ...rest } = await pgDatabase();
  return { store: createBridgesPostgresStore(db), ...rest };
});

test("on PostgreSQL a destination is described inside a transaction, its uncommitted rows included", async () => {
  const { db, addOrganizations, close } = await pgDatabase();
  try {
    await addOrganizations(["org-tx"]);
    const described = await db.sql.begin(async (tx) => {
      await tx`INSERT INTO sources (id, organization_id, name, type, slug, created_at, updated_at)
               VALUES ('src-tx', 'org-tx', 'Shop', 'webhook', 'slug-tx', '', '')`;
      await tx`INSERT INTO bridges (id, organization_id, source_id, name, status, created_at, updated_at)
               VALUES ('br-tx', 'org-tx', 'src-tx', 'Orders', 'active', '', '')`;
      await tx`INSERT INTO destinations (id, bridge_id, organization_id, name, type, priority,
                 max_retries, filters, created_at, updated_at)
               VALUES ('dst-tx', 'br-tx', 'org-tx', 'Billing', 'http', 'high', 0, '[]', '', '')`;
      return describeDestinationPostgres(tx, "dst-tx");
    });
    expect(described).toEqual({
      destinationId: "dst-tx",
      organizationId: "org-tx",
      bridgeId: "br-tx",
      bridgeName: "Orders",
      sourceName: "Shop",
      destinationName: "Billing",
      destinationType: "http",
      destinationPriority: "high",
    });
    expect(await describeDestinationPostgres(db.sql, "no-such-destination")).toBeNull();
  } finally {
    await close();
  }
});
