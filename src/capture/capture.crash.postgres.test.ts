import { afterEach, expect, test } from "bun:test";
import { SQL, type Subprocess } from "bun";
import { apiCall } from "../test-utils/api-call.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { killMidStream, registerOperator, startWeirProcess } from "../test-utils/weir-process.ts";

const SENDERS = 16;
/** Acknowledged captures to wait for before the kill. */
const BEFORE_KILL = 200;
const databases = usePgDatabases();
const tempDir = useTempDirs("weir-crash-pg-");
const running: Subprocess[] = [];

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});

/** A body unique to one request, with every byte value in it (a crash must not tear any of them). */
function bodyFor(sender: number, n: number): Uint8Array {
  const tag = new TextEncoder().encode(`${sender}:${n}:`);
  const body = new Uint8Array(tag.length + 256 + (n % 7) * 100);
  body.set(tag);
  for (let i = tag.length; i < body.length; i++) body[i] = (i * 31 + n) % 256;
  return body;
}

test("on PostgreSQL, kill -9 under load loses no acknowledged capture: each is stored byte-identical after a restart", async () => {
  const db = await databases.create();
  const dataDir = tempDir();
  const env = {
    WEIR_DATABASE_URL: db.url,
    WEIR_SECRET_KEY: "ef".repeat(32),
    WEIR_CAPTURE_RATE_LIMIT: "off",
  };
  const first = await startWeirProcess(dataDir, env, running);
  const token = await registerOperator(first.url);
  const created = await apiCall(first, "POST", "/api/v1/endpoints", {
    headers: { authorization: `Bearer ${token}` },
    body: { debug_endpoint: { name: "crash" } },
  });
  expect(created.status).toBe(201);
  const { slug } = created.body.data as { slug: string };

  const acknowledged = new Map<string, Uint8Array>();
  await killMidStream({
    proc: first.proc,
    senders: SENDERS,
    async send(index, n) {
      const body = bodyFor(index, n);
      const response = await fetch(`${first.url}/w/${slug}/s${index}`, { method: "POST", body });
      if (response.status !== 200) throw new Error(`status ${response.status}`);
      acknowledged.set(((await response.json()) as { request_id: string }).request_id, body);
    },
    ready: () => acknowledged.size >= BEFORE_KILL,
    timeoutMs: 20_000,
    what: `${BEFORE_KILL} captures`,
  });
  expect(first.proc.signalCode).toBe("SIGKILL");

  const second = await startWeirProcess(dataDir, env, running);
  const after = await fetch(`${second.url}/w/${slug}/after`, { method: "POST", body: "again" });
  expect(after.status).toBe(200);

  const sql = new SQL(db.url, { max: 1 });
  try {
    const missing: string[] = [];
    const altered: string[] = [];
    for (const [id, body] of acknowledged) {
      const [row] = await sql`SELECT body FROM captured_requests WHERE id = ${id}`;
      if (!row) missing.push(id);
      else if (!Buffer.from(row.body as Uint8Array).equals(Buffer.from(body))) altered.push(id);
    }
    expect({ acknowledged: acknowledged.size >= BEFORE_KILL, missing, altered }).toEqual({
      acknowledged: true,
      missing: [],
      altered: [],
    });
  } finally {
    await sql.close();
  }
}, 60_000);
