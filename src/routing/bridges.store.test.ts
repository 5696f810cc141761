import { sqliteStoreDatabase, usePgStoreDatabase } from "../test-utils/store-databases.ts";
import { createBridgesPostgresStore } from "./bridges.postgres.ts";
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
