import { usePgStoreDatabase } from "../test-utils/store-databases.ts";
import { createTestDb } from "../test-utils/test-db.ts";
import { createDeliveryPostgresStore } from "./delivery.postgres.ts";
import { createDeliverySqliteStore } from "./delivery.sqlite.ts";
import { describeDeliveryStore } from "./delivery.store.contract.ts";

const pgDatabase = usePgStoreDatabase();

describeDeliveryStore("SQLite", async () => {
  const db = createTestDb();
  return {
    store: createDeliverySqliteStore(db),
    async set(id, fields) {
      for (const [column, value] of Object.entries(fields)) {
        db.sqlite.run(`UPDATE deliveries SET ${column} = ? WHERE id = ?`, [value, id]);
      }
    },
  };
});

describeDeliveryStore("PostgreSQL", async () => {
  const { db } = await pgDatabase();
  return {
    store: createDeliveryPostgresStore(db),
    async set(id, fields) {
      for (const [column, value] of Object.entries(fields)) {
        await db.sql.unsafe(`UPDATE deliveries SET ${column} = $1 WHERE id = $2`, [value, id]);
      }
    },
  };
});
