import { usePgStoreDatabase } from "../test-utils/store-databases.ts";
import { createTestDb } from "../test-utils/test-db.ts";
import { createEventsPostgresStore } from "./events.postgres.ts";
import { createEventsSqliteStore } from "./events.sqlite.ts";
import { describeEventsStore } from "./events.store.contract.ts";

const pgDatabase = usePgStoreDatabase();

describeEventsStore("SQLite", async () => {
  const db = createTestDb();
  return {
    store: createEventsSqliteStore(db),
    async run(sql, params = []) {
      db.sqlite.run(
        sql.replaceAll(/\$\d+/g, (p) => `?${p.slice(1)}`),
        params as never[],
      );
    },
  };
});

describeEventsStore("PostgreSQL", async () => {
  const { db } = await pgDatabase();
  return {
    store: createEventsPostgresStore(db),
    async run(sql, params = []) {
      await db.sql.unsafe(sql, params);
    },
  };
});
