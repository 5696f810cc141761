import { sqliteStoreDatabase, usePgStoreDatabase } from "../test-utils/store-databases.ts";
import { createSourcesPostgresStore } from "./sources.postgres.ts";
import { createSourcesSqliteStore } from "./sources.sqlite.ts";
import { describeSourcesStore } from "./sources.store.contract.ts";

const pgDatabase = usePgStoreDatabase();

/** Stands in for the dedup room's forgetting: records it, or fails once when told to. */
function forgetting() {
  const forgotten: string[] = [];
  let failNext = false;
  return {
    forgotten,
    failNextForget: () => {
      failNext = true;
    },
    forget: (sourceId: string) => {
      if (failNext) {
        failNext = false;
        throw new Error("dedup could not forget the source");
      }
      forgotten.push(sourceId);
    },
  };
}

describeSourcesStore("SQLite", async () => {
  const { db, ...rest } = await sqliteStoreDatabase();
  const { forget, ...hooks } = forgetting();
  const store = createSourcesSqliteStore(db, { forgetSource: (_tx, id) => forget(id) });
  return { store, ...hooks, ...rest };
});

describeSourcesStore("PostgreSQL", async () => {
  const { db, ...rest } = await pgDatabase();
  const { forget, ...hooks } = forgetting();
  const store = createSourcesPostgresStore(db, { forgetSource: async (_tx, id) => forget(id) });
  return { store, ...hooks, ...rest };
});
