import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { pollUntil } from "../test-utils/poll.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { registerOperator, startWeirProcess } from "../test-utils/weir-process.ts";

/** Enough rows that the drain (500 a batch, pausing between batches) is far from done at the kill. */
const ROWS = 8_000;
const tempDir = useTempDirs("weir-drain-crash-");
const running: Subprocess[] = [];

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});

const startWeir = (dataDir: string) => startWeirProcess(dataDir, {}, running);

async function api(
  url: string,
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** Stored rows written beside the running server (as many captures would have), counted too. */
function seedRows(dataDir: string, endpointId: string): void {
  const db = new Database(join(dataDir, "weir.db"));
  try {
    db.run("PRAGMA busy_timeout = 5000");
    const insert = db.prepare(
      `INSERT INTO captured_requests (id, endpoint_id, method, path, query_string,
         raw_headers, body, size, status, created_at)
       VALUES (?, ?, 'POST', '', '', '[]', ?, 5, 200, '2026-01-01T00:00:00.000Z')`,
    );
    const body = new TextEncoder().encode("crash");
    db.transaction(() => {
      for (let i = 0; i < ROWS; i++) insert.run(Bun.randomUUIDv7(), endpointId, body);
      db.run("UPDATE debug_endpoints SET request_count = request_count + ? WHERE id = ?", [
        ROWS,
        endpointId,
      ]);
    })();
  } finally {
    db.close();
  }
}

function stateOf(dataDir: string, endpointId: string) {
  const db = new Database(join(dataDir, "weir.db"), { readonly: true });
  try {
    const rows = db
      .query<{ n: number }, [string]>(
        "SELECT count(*) AS n FROM captured_requests WHERE endpoint_id = ?",
      )
      .get(endpointId)?.n;
    const endpoint = db
      .query<{ deleted_at: string | null }, [string]>(
        "SELECT deleted_at FROM debug_endpoints WHERE id = ?",
      )
      .get(endpointId);
    return { rows, endpointRow: endpoint !== null, deleted: endpoint?.deleted_at != null };
  } finally {
    db.close();
  }
}

test("kill -9 right after a delete: the endpoint stays gone for readers and senders, and the drain resumes at start until nothing is left", async () => {
  const dataDir = tempDir();
  const first = await startWeir(dataDir);
  const token = await registerOperator(first.url);
  const created = await api(first.url, token, "POST", "/api/v1/endpoints", {
    debug_endpoint: { name: "big", slug: "big-history" },
  });
  expect(created.status).toBe(201);
  const endpointId = created.body.data.id as string;
  seedRows(dataDir, endpointId);

  const deleted = await api(first.url, token, "DELETE", `/api/v1/endpoints/${endpointId}`);
  expect(deleted.status).toBe(204);
  first.proc.kill("SIGKILL");
  await first.proc.exited;

  // The mark is on disk; most rows are not drained yet: what follows is the resumed drain.
  const atKill = stateOf(dataDir, endpointId);
  expect(atKill.endpointRow && atKill.deleted).toBe(true);
  expect(atKill.rows).toBeGreaterThan(ROWS / 2);

  const second = await startWeir(dataDir);
  const get = await api(second.url, token, "GET", `/api/v1/endpoints/${endpointId}`);
  const capture = await fetch(`${second.url}/w/big-history`, { method: "POST", body: "late" });
  expect([get.status, capture.status]).toEqual([404, 404]);

  const drained = await pollUntil(
    () => {
      const state = stateOf(dataDir, endpointId);
      return state.rows === 0 && !state.endpointRow && state;
    },
    { timeoutMs: 30_000, what: "the drain to finish after the restart" },
  );
  expect(drained).toEqual({ rows: 0, endpointRow: false, deleted: false });
}, 90_000);
