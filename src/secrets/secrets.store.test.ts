import { expect, test } from "bun:test";
import { Elysia } from "elysia";
import type { AuthPorts } from "../auth/auth.room.ts";
import type { Db } from "../db/db.open.ts";
import { createIds } from "../shared/ids.ts";
import { createSealer } from "../shared/sealed.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { sqliteStoreDatabase, usePgStoreDatabase } from "../test-utils/store-databases.ts";
import { createSecretsPostgresStore } from "./secrets.postgres.ts";
import { createSecretsRoom } from "./secrets.room.ts";
import { createSecret, type SecretsDeps, updateSecret } from "./secrets.service.ts";
import { createSecretsSqliteStore } from "./secrets.sqlite.ts";
import { describeSecretsStore } from "./secrets.store.contract.ts";

const pgDatabase = usePgStoreDatabase();

describeSecretsStore("SQLite", async () => {
  const { db, ...rest } = await sqliteStoreDatabase();
  return { store: createSecretsSqliteStore(db), ...rest };
});

describeSecretsStore("PostgreSQL", async () => {
  const { db, ...rest } = await pgDatabase();
  return { store: createSecretsPostgresStore(db), ...rest };
});

test("over PostgreSQL, values are sealed before they are stored and open through the room's ports", async () => {
  const { db: pg, addOrganizations, close } = await pgDatabase();
  try {
    await addOrganizations(["org-a", "org-b"]);
    const secretKey = crypto.getRandomValues(new Uint8Array(32));
    const clock = createFakeClock();
    const deps: SecretsDeps = {
      store: createSecretsPostgresStore(pg),
      sealer: createSealer(secretKey, "secrets"),
      clock,
      ids: createIds(),
    };
    const first = "plain-first-4f1c9a";
    const rotated = "plain-rotated-77e0b2";
    await createSecret("org-a", { name: "WEBHOOK_TOKEN", value: first }, deps);
    const rows = JSON.stringify(await pg.sql`SELECT * FROM secrets`);
    expect(rows).toContain("WEBHOOK_TOKEN");
    expect(rows).not.toContain(first);
    await updateSecret("org-a", "WEBHOOK_TOKEN", { value: rotated }, deps);
    const after = JSON.stringify(await pg.sql`SELECT * FROM secrets`);
    expect(after).not.toContain(rotated);
    expect(after).not.toContain(first);

    const room = createSecretsRoom(
      // The room must store in PostgreSQL: a SQLite handle it touched would throw.
      { postgres: pg, db: {} as Db, clock, ids: deps.ids, secretKey },
      { guard: (() => new Elysia()) as unknown as AuthPorts["guard"] },
    );
    expect((await room.ports.resolveSecrets("org-a"))("WEBHOOK_TOKEN")).toBe(rotated);
    expect((await room.ports.resolveSecrets("org-b"))("WEBHOOK_TOKEN")).toBeUndefined();
    expect(await room.ports.secretEnvironment("org-a")).toEqual({ WEBHOOK_TOKEN: rotated });
    expect(room.ports.resolveSecretsNow).toBeUndefined();
  } finally {
    await close();
  }
});

test("over SQLite, the room also lends the lookup that reads without waiting", async () => {
  const { db, addOrganizations, close } = await sqliteStoreDatabase();
  try {
    await addOrganizations(["org-a"]);
    const secretKey = crypto.getRandomValues(new Uint8Array(32));
    const clock = createFakeClock();
    const ids = createIds();
    const room = createSecretsRoom(
      { db, clock, ids, secretKey },
      { guard: (() => new Elysia()) as unknown as AuthPorts["guard"] },
    );
    const deps: SecretsDeps = {
      store: createSecretsSqliteStore(db),
      sealer: createSealer(secretKey, "secrets"),
      clock,
      ids,
    };
    const lookup = room.ports.resolveSecretsNow?.("org-a");
    // Rows are read on the first lookup, not when the lookup is made.
    await createSecret("org-a", { name: "LATE", value: "written-after" }, deps);
    expect(lookup?.("LATE")).toBe("written-after");
    expect((await room.ports.resolveSecrets("org-a"))("LATE")).toBe("written-after");
  } finally {
    await close();
  }
});
