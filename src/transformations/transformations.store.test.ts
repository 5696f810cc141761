import { sqliteStoreDatabase, usePgStoreDatabase } from "../test-utils/store-databases.ts";
import { createTransformationsPostgresStore } from "./transformations.postgres.ts";
import { createTransformationsSqliteStore } from "./transformations.sqlite.ts";
import { describeTransformationsStore } from "./transformations.store.contract.ts";

const pgDatabase = usePgStoreDatabase();

describeTransformationsStore("SQLite", async () => {
  const { db, ...rest } = await sqliteStoreDatabase();
  return { store: createTransformationsSqliteStore(db), ...rest };
});

describeTransformationsStore("PostgreSQL", async () => {
  const { db, ...rest } = await pgDatabase();
  return { store: createTransformationsPostgresStore(db), ...rest };
});
