import { describe, expect, test } from "bun:test";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { StartupError } from "./db.open.ts";
import { openPostgres, requireSupportedServer } from "./db.postgres.ts";

const databases = usePgDatabases();

/** A local port nothing listens on: one the kernel just handed out and was closed again. */
function closedPort(): number {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

function withPassword(url: string, password: string): string {
  const parsed = new URL(url);
  parsed.password = password;
  return parsed.toString();
}

async function startupError(url: string): Promise<StartupError> {
  const error = await openPostgres(url, { connectTimeoutSeconds: 5 }).then(
    (db) => db.close().then(() => new Error("opened")),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StartupError);
  return error as StartupError;
}

describe("openPostgres", () => {
  test("opens a pool on a reachable server and queries through it", async () => {
    const db = await databases.create();
    const pg = await openPostgres(db.url, { poolSize: 3 });
    try {
      expect(pg.dialect).toBe("postgres");
      const [{ name }] = await pg.sql`SELECT current_database() AS name`;
      expect(name).toBe(db.name);
    } finally {
      await pg.close();
    }
  });

  test("a URL that is not postgres:// is refused before any connection", async () => {
    const error = await startupError("mysql://root:hunter22@localhost/weir");
    expect(error.message).toBe(
      "database URL mysql://root:***@localhost/weir must be postgres://user:password@host[:port]/database (or postgresql://…)",
    );
  });

  test("a refused connection names the server, not the password", async () => {
    const url = `postgres://weir:s3cret-pass@127.0.0.1:${closedPort()}/weir`;
    const error = await startupError(url);
    expect(error.message).toBe(
      `cannot connect to PostgreSQL at ${url.replace("s3cret-pass", "***")}: connection refused or host unreachable`,
    );
  });

  test("a wrong password says so without echoing it", async () => {
    const db = await databases.create();
    const error = await startupError(withPassword(db.url, "not-the-password"));
    expect(error.message).toContain("wrong user name or password");
    expect(error.message).not.toContain("not-the-password");
    expect(error.message).toContain(":***@");
  });

  test("a database that does not exist is named as such", async () => {
    const db = await databases.create();
    const url = new URL(db.url);
    url.pathname = `/${db.name}_missing`;
    const error = await startupError(url.toString());
    expect(error.message).toEndWith("the database does not exist");
  });

  test("servers older than PostgreSQL 14 are refused", () => {
    expect(() => requireSupportedServer({ versionNum: 130_015, version: "13.15" })).toThrow(
      "PostgreSQL 13.15 is too old: Weir needs PostgreSQL 14 or newer",
    );
    expect(() => requireSupportedServer({ versionNum: 140_000, version: "14.0" })).not.toThrow();
  });
});
