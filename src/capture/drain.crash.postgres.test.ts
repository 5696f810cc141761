import { afterEach, expect, test } from "bun:test";
import { SQL, type Subprocess } from "bun";
import { apiCall } from "../test-utils/api-call.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { registerOperator, startWeirProcess } from "../test-utils/weir-process.ts";

/** Enough rows that the drain (100 a batch, pausing between batches) is far from done at the kill. */
const ROWS = 8_000;
const databases = usePgDatabases();
const tempDir = useTempDirs("weir-drain-crash-pg-");
const running: Subprocess[] = [];

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});

/** Stored rows written beside the running server (as many captures would have), counted too. */
async function seedRows(sql: SQL, endpointId: string): Promise<void> {
  const body = Buffer.from("crash");
  const rows = Array.from({ length: ROWS }, () => ({
    id: Bun.randomUUIDv7(),
    endpoint_id: endpointId,
    method: "POST",
    path: "",
    query_string: "",
    raw_headers: "[]",
    body,
    size: 5,
    status: 200,
    created_at: "2026-01-01T00:00:00.000Z",
  }));
  await sql.begin(async (tx) => {
    for (let i = 0; i < rows.length; i += 1_000) {
      await tx`INSERT INTO captured_requests ${tx(rows.slice(i, i + 1_000))}`;
    }
    await tx`UPDATE debug_endpoints SET request_count = request_count + ${ROWS} WHERE id = ${endpointId}`;
  });
}

async function stateOf(sql: SQL, endpointId: string) {
  const [counted] = await sql`
    SELECT count(*)::int AS n FROM captured_requests WHERE endpoint_id = ${endpointId}`;
  const [endpoint] = await sql`SELECT deleted_at FROM debug_endpoints WHERE id = ${endpointId}`;
  return {
    rows: counted.n as number,
    endpointRow: endpoint !== undefined,
    deleted: endpoint?.deleted_at != null,
  };
}

test("on PostgreSQL, kill -9 right after a delete: the endpoint stays gone for readers and senders, and the drain resumes at start until nothing is left", async () => {
  const db = await databases.create();
  const sql = new SQL(db.url, { max: 1 });
  try {
    const dataDir = tempDir();
    const env = { WEIR_DATABASE_URL: db.url, WEIR_SECRET_KEY: "d7".repeat(32) };
    const first = await startWeirProcess(dataDir, env, running);
    const token = await registerOperator(first.url);
    const headers = { authorization: `Bearer ${token}` };
    const created = await apiCall(first, "POST", "/api/v1/endpoints", {
      headers,
      body: { debug_endpoint: { name: "big", slug: "big-history" } },
    });
    expect(created.status).toBe(201);
    const endpointId = created.body.data.id as string;
    await seedRows(sql, endpointId);

    const deleted = await apiCall(first, "DELETE", `/api/v1/endpoints/${endpointId}`, { headers });
    expect(deleted.status).toBe(204);
    first.proc.kill("SIGKILL");
    await first.proc.exited;

    // The mark is committed; most rows are not drained yet: what follows is the resumed drain.
    const atKill = await stateOf(sql, endpointId);
    expect(atKill.endpointRow && atKill.deleted).toBe(true);
    expect(atKill.rows).toBeGreaterThan(ROWS / 2);

    const second = await startWeirProcess(dataDir, env, running);
    const get = await apiCall(second, "GET", `/api/v1/endpoints/${endpointId}`, { headers });
    const capture = await fetch(`${second.url}/w/big-history`, { method: "POST", body: "late" });
    expect([get.status, capture.status]).toEqual([404, 404]);

    const drained = await pollUntil(
      async () => {
        const state = await stateOf(sql, endpointId);
        return state.rows === 0 && !state.endpointRow && state;
      },
      { timeoutMs: 30_000, what: "the drain to finish after the restart" },
    );
    expect(drained).toEqual({ rows: 0, endpointRow: false, deleted: false });
  } finally {
    await sql.close();
  }
}, 90_000);
