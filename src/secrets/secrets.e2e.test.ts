import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Elysia } from "elysia";
import type { AuthPorts } from "../auth/auth.room.ts";
import { DB_FILE } from "../db/db.open.ts";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { storedRows } from "../test-utils/stored-rows.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { createSecretsRoom } from "./secrets.room.ts";

let server: TestServer;
let owner: TestAccount;
let member: TestAccount;
let stranger: TestAccount;
/** The ports the app lends other rooms, over the same database (the guard is unused by them). */
const ports = () =>
  createSecretsRoom(server.deps, { guard: (() => new Elysia()) as unknown as AuthPorts["guard"] })
    .ports;
const PLAINTEXT = "xoxb-very-secret-token-4f1c9a";

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, { plan: "team" });
  member = await owner.addMember("member");
  stranger = await signUp(server, { plan: "team" });
});
afterAll(() => server.stop());

describe("secrets", () => {
  test("create answers names and dates only; list, get, PUT and DELETE follow", async () => {
    const created = await callAs(server, owner, "POST", "/api/v1/secrets", {
      name: "SLACK_TOKEN",
      value: PLAINTEXT,
    });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body.data).sort()).toEqual(["created_at", "name", "updated_at"]);

    const list = await callAs(server, member, "GET", "/api/v1/secrets");
    expect(list.status).toBe(200);
    expect(list.body.data.map((s: { name: string }) => s.name)).toEqual(["SLACK_TOKEN"]);

    const updated = await callAs(server, owner, "PUT", "/api/v1/secrets/SLACK_TOKEN", {
      value: "rotated-value-77",
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data.name).toBe("SLACK_TOKEN");
    const lookup = await ports().resolveSecrets(owner.organizationId);
    expect(lookup("SLACK_TOKEN")).toBe("rotated-value-77");
    expect(lookup("UNKNOWN")).toBeUndefined();

    expect((await callAs(server, owner, "DELETE", "/api/v1/secrets/SLACK_TOKEN")).status).toBe(204);
    const gone = await callAs(server, owner, "GET", "/api/v1/secrets/SLACK_TOKEN");
    expect([gone.status, gone.body]).toEqual([404, { error: "not_found" }]);
  });

  test.each(["lower", "1ABC", "A-B", "", "ÄB"])("name %p → 422 errors.name", async (name) => {
    const answer = await callAs(server, owner, "POST", "/api/v1/secrets", { name, value: "v" });
    expect(answer.status).toBe(422);
    expect(answer.body.error).toBe("validation_failed");
    expect(answer.body.errors.name).toBeArray();
  });

  test("a taken name → 409; the same name in another organization is free", async () => {
    const body = { name: "TAKEN", value: "one" };
    expect((await callAs(server, owner, "POST", "/api/v1/secrets", body)).status).toBe(201);
    const again = await callAs(server, owner, "POST", "/api/v1/secrets", body);
    expect([again.status, again.body.error]).toEqual([409, "secret_name_taken"]);
    expect((await callAs(server, stranger, "POST", "/api/v1/secrets", body)).status).toBe(201);
  });

  test("members read, only admins write; another organization's secret is a 404", async () => {
    await callAs(server, owner, "POST", "/api/v1/secrets", { name: "MINE", value: "m" });
    const denied = await callAs(server, member, "POST", "/api/v1/secrets", {
      name: "NOPE",
      value: "x",
    });
    expect([denied.status, denied.body]).toEqual([403, { error: "forbidden" }]);
    for (const method of ["PUT", "DELETE"]) {
      const answer = await callAs(server, member, method, "/api/v1/secrets/MINE", { value: "y" });
      expect(answer.status).toBe(403);
    }
    for (const method of ["GET", "PUT", "DELETE"]) {
      const answer = await callAs(server, stranger, method, "/api/v1/secrets/MINE", { value: "z" });
      expect([method, answer.status]).toEqual([method, 404]);
    }
    expect((await ports().resolveSecrets(owner.organizationId))("MINE")).toBe("m");
    expect((await ports().resolveSecrets(stranger.organizationId))("MINE")).toBeUndefined();
  });

  /** Every byte of the SQLite database files, the WAL checkpointed first. */
  const storedSqliteBytes = () => {
    server.deps.db.sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    return [DB_FILE, `${DB_FILE}-wal`]
      .map((file) => join(server.dataDir, file))
      .filter((path) => existsSync(path))
      .map((path) => readFileSync(path).toString("latin1"))
      .join("");
  };

  test("values are sealed at rest and never in a response or a log line", async () => {
    const value = "plain-text-canary-9d2e77b1";
    const seen: string[] = [];
    const record = (answer: { body: unknown }) => seen.push(JSON.stringify(answer.body));
    record(await callAs(server, owner, "POST", "/api/v1/secrets", { name: "CANARY", value }));
    record(await callAs(server, owner, "POST", "/api/v1/secrets", { name: "CANARY", value }));
    record(await callAs(server, owner, "PUT", "/api/v1/secrets/CANARY", { value }));
    record(await callAs(server, owner, "GET", "/api/v1/secrets"));
    record(await callAs(server, owner, "GET", "/api/v1/secrets/CANARY"));
    record(await callAs(server, member, "PUT", "/api/v1/secrets/CANARY", { value }));
    expect(seen.join("\n")).not.toContain(value);
    expect(server.logs.join("\n")).not.toContain(value);
    const bytes = server.postgres
      ? JSON.stringify(await storedRows(server, "secrets", "organization_id", owner.organizationId))
      : storedSqliteBytes();
    expect(bytes).toContain("CANARY");
    expect(bytes).not.toContain(value);
    expect((await ports().secretEnvironment(owner.organizationId)).CANARY).toBe(value);
  });
});
