import { expect, test } from "bun:test";
import { closeDeps, openDeps } from "../deps.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { makeTempDir } from "../test-utils/temp-dir.ts";
import { loadConfig } from "./config.ts";

const databases = usePgDatabases();

test("on PostgreSQL the node's own disk never refuses writes; on SQLite the data dir's does", async () => {
  const database = await databases.create();
  const dir = makeTempDir("weir-disk-pg-");
  // More free space than any disk here: a SQLite node refuses, a PostgreSQL node does not.
  const env = { WEIR_DATA_DIR: dir.path, WEIR_MIN_FREE_DISK_MB: String(1024 ** 3) };
  const onPostgres = await openDeps(
    loadConfig({
      env: { ...env, WEIR_DATABASE_URL: database.url, WEIR_SECRET_KEY: "ab".repeat(32) },
    }).config,
  );
  try {
    expect(onPostgres.disk.isLow()).toBe(false);
    expect(onPostgres.disk.sample().low).toBe(false);
  } finally {
    await closeDeps(onPostgres);
  }
  const onSqlite = await openDeps(loadConfig({ env }).config);
  try {
    expect(onSqlite.disk.isLow()).toBe(true);
  } finally {
    await closeDeps(onSqlite);
    dir.remove();
  }
});
