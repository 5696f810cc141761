import { sqliteStoreDatabase, usePgStoreDatabase } from "../test-utils/store-databases.ts";
import { createPostgresDedupKeys } from "./dedup.keys.postgres.ts";
import { createDedupKeys } from "./dedup.keys.ts";
import { createDedupPostgresStore } from "./dedup.postgres.ts";
import { dedupRepo } from "./dedup.repo.ts";
import { createDedupSqliteStore } from "./dedup.sqlite.ts";
import { describeDedupStore } from "./dedup.store.contract.ts";

const pgDatabase = usePgStoreDatabase();

describeDedupStore("SQLite", async () => {
  const { db, close } = await sqliteStoreDatabase();
  const keys = createDedupKeys({ repo: dedupRepo, maxKeys: 1000 });
  return { store: createDedupSqliteStore(db, keys, () => Date.now()), close };
});

describeDedupStore("PostgreSQL", async () => {
  const { db, close } = await pgDatabase();
  return { store: createDedupPostgresStore(db, createPostgresDedupKeys(db.sql)), close };
});
