import { afterAll } from "bun:test";
import { SQL } from "bun";

/**
 * The PostgreSQL server the tests create their databases on: WEIR_TEST_PG_URL, which
 * ./scripts/test sets (scripts/ensure-postgres.sh). A test that needs it fails without it rather
 * than passing by skipping.
 */
export function testPgServerUrl(): string {
  const url = process.env.WEIR_TEST_PG_URL;
  if (!url) {
    throw new Error(
      'WEIR_TEST_PG_URL is not set: run the tests through ./scripts/test, or point it at a PostgreSQL server (eval "$(scripts/ensure-postgres.sh)")',
    );
  }
  return url;
}

/** A fresh, empty database on the test server, and how to drop it. */
export interface TestPgDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

let counter = 0;

/** Creates an empty database with a unique name on the test server. */
export async function createTestPgDatabase(): Promise<TestPgDatabase> {
  const server = testPgServerUrl();
  const name = `weir_test_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  const admin = new SQL(server, { max: 1 });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.close();
  }
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      const dropper = new SQL(server, { max: 1 });
      try {
        await dropper.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.close();
      }
    },
  };
}

/**
 * For a test file: `const databases = usePgDatabases()` then `await databases.create()` in a
 * test; every database made is dropped after the file's tests.
 */
export function usePgDatabases(): { create(): Promise<TestPgDatabase> } {
  const made: TestPgDatabase[] = [];
  afterAll(async () => {
    for (const db of made.splice(0)) await db.drop();
  });
  return {
    create: async () => {
      const db = await createTestPgDatabase();
      made.push(db);
      return db;
    },
  };
}
