import type { TestServer } from "./test-server.ts";

/**
 * Runs one statement on the test server's database and returns only once it has committed, from
 * synchronous code (a hook the app calls mid-request): on SQLite on the server's own handle; on
 * PostgreSQL in a child process the caller blocks on, since a PostgreSQL client only answers
 * asynchronously.
 */
export function runSqlNow(
  server: Pick<TestServer, "deps" | "databaseUrl">,
  sql: string,
  params: string[],
): void {
  if (!server.databaseUrl) {
    server.deps.db.sqlite.run(sql.replace(/\$(\d+)/g, "?$1"), params);
    return;
  }
  const script = `const sql = new Bun.SQL(process.env.SQL_NOW_URL);
await sql.unsafe(process.env.SQL_NOW_TEXT, JSON.parse(process.env.SQL_NOW_PARAMS));
await sql.close();`;
  const child = Bun.spawnSync([process.execPath, "-e", script], {
    env: {
      ...process.env,
      SQL_NOW_URL: server.databaseUrl,
      SQL_NOW_TEXT: sql,
      SQL_NOW_PARAMS: JSON.stringify(params),
    },
  });
  if (child.exitCode !== 0) throw new Error(`${sql} failed: ${child.stderr.toString()}`);
}
