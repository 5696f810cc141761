import { usePgStoreDatabase } from "../test-utils/store-databases.ts";
import { createTestDb } from "../test-utils/test-db.ts";
import { createDeliveryPostgresStore } from "./delivery.postgres.ts";
import { createDeliveryRepo } from "./delivery.repo.ts";
import { createForwardsPostgresStore } from "./forwards.postgres.ts";
import { createForwardsSqliteStore } from "./forwards.repo.ts";
import { describeForwardsStore } from "./forwards.store.contract.ts";

const pgDatabase = usePgStoreDatabase();

describeForwardsStore("SQLite", async () => {
  const db = createTestDb();
  return {
    store: createForwardsSqliteStore(db, createDeliveryRepo(db)),
    async exec(statement, params) {
      db.sqlite.run(statement, params as never);
    },
  };
});

describeForwardsStore("PostgreSQL", async () => {
  const { db } = await pgDatabase();
  return {
    store: createForwardsPostgresStore(db, createDeliveryPostgresStore(db)),
    async exec(statement, params) {
      let n = 0;
      await db.sql.unsafe(
        statement.replace(/\?/g, () => `$${++n}`),
        params as never,
      );
    },
  };
});
