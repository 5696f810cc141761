import { sqliteStoreDatabase, usePgStoreDatabase } from "../test-utils/store-databases.ts";
import { createSourcesPostgresStore } from "./sources.postgres.ts";
import { createSourcesSqliteStore } from "./sources.sqlite.ts";
import { describeSourcesStore } from "./sources.store.contract.ts";

const pgDatabase = usePgStoreDatabase();

describeSourcesStore("SQLite", async () => {
  const { db, ...rest } = await sqliteStoreDatabase();
  return { store: createSourcesSqliteStore(db), ...rest };
});

describeSourcesStore("PostgreSQL", async () => {
  const { db, ...rest } = await pgDatabase();
  return { store: createSourcesPostgresStore(db), ...rest };
});
