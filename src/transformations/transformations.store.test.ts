import { expect, test } from "bun:test";
import { Elysia } from "elysia";
import type { AuthPorts } from "../auth/auth.room.ts";
import type { Db } from "../db/db.open.ts";
import type { Sandbox } from "../sandbox/sandbox.model.ts";
import { createIds } from "../shared/ids.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { sqliteStoreDatabase, usePgStoreDatabase } from "../test-utils/store-databases.ts";
import { createTransformationsPostgresStore } from "./transformations.postgres.ts";
import { createTransformationsRoom } from "./transformations.room.ts";
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

test("a room given a PostgreSQL database looks its transformations up there", async () => {
  const { db: pg, addOrganizations, close } = await pgDatabase();
  try {
    await addOrganizations(["org-a", "org-b"]);
    const store = createTransformationsPostgresStore(pg);
    const at = "2026-01-01T00:00:00.000Z";
    const code = 'addHandler("transform", (r) => r);';
    await store.insert({
      id: "t-1",
      organizationId: "org-a",
      name: "kept",
      code,
      createdAt: at,
      updatedAt: at,
    });
    const { ports } = createTransformationsRoom(
      // A SQLite handle or a sandbox the room touched would throw.
      {
        postgres: pg,
        db: {} as Db,
        clock: createFakeClock(),
        ids: createIds(),
        sandbox: {} as Sandbox,
      },
      {
        guard: (() => new Elysia()) as unknown as AuthPorts["guard"],
        secretEnvironment: async () => ({}),
      },
    );
    expect(await ports.transformationExists("org-a", "t-1")).toBe(true);
    expect(await ports.transformationExists("org-b", "t-1")).toBe(false);
    expect(await ports.runTransformation("org-b", "t-1", {})).toEqual({
      error: { code: "script_error", message: "transformation t-1 not found" },
    });
  } finally {
    await close();
  }
});
