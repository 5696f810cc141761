import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { runMigrations } from "../db/db.migrate.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { openDatabase } from "../db/db.open.ts";
import { seedEndpoint, seedOrganization } from "../test-utils/capture-fixtures.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { killMidStream, startWeirProcess } from "../test-utils/weir-process.ts";
import { NO_FILTER } from "./request-filter.model.ts";
import { createRequestsRepo } from "./requests.repo.ts";

const SENDERS = 24;
/** Acknowledged captures to wait for before the kill. */
const BEFORE_KILL = 300;
const tempDir = useTempDirs("weir-crash-");
const running: Subprocess[] = [];

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});

const startWeir = (dataDir: string) =>
  // The caller's WEIR_* settings must not change what is tested (durability above all).
  startWeirProcess(dataDir, { WEIR_CAPTURE_RATE_LIMIT: "off" }, running);

/** A body unique to one request, with every byte value in it (a crash must not tear any of them). */
function bodyFor(sender: number, n: number): Uint8Array {
  const tag = new TextEncoder().encode(`${sender}:${n}:`);
  const body = new Uint8Array(tag.length + 256 + (n % 7) * 100);
  body.set(tag);
  for (let i = tag.length; i < body.length; i++) body[i] = (i * 31 + n) % 256;
  return body;
}

test("kill -9 under load loses no acknowledged capture: each is stored byte-identical after a restart", async () => {
  const dataDir = tempDir();
  const seed = openDatabase(dataDir);
  runMigrations(seed.sqlite, MIGRATIONS);
  seedOrganization(seed.sqlite, "org-crash", "enterprise");
  seedEndpoint(seed.sqlite, { id: "ep-crash", slug: "crash-test", organizationId: "org-crash" });
  seed.close();

  const first = await startWeir(dataDir);
  const acknowledged = new Map<string, Uint8Array>();
  // Mid-stream: every sender has a request in flight when the process is killed.
  await killMidStream({
    proc: first.proc,
    senders: SENDERS,
    async send(index, n) {
      const body = bodyFor(index, n);
      const response = await fetch(`${first.url}/w/crash-test/s${index}`, {
        method: "POST",
        body,
      });
      if (response.status !== 200) throw new Error(`status ${response.status}`);
      acknowledged.set(((await response.json()) as { request_id: string }).request_id, body);
    },
    ready: () => acknowledged.size >= BEFORE_KILL,
    timeoutMs: 15_000,
    what: `${BEFORE_KILL} captures`,
  });
  expect(first.proc.signalCode).toBe("SIGKILL");

  const second = await startWeir(dataDir);
  const after = await fetch(`${second.url}/w/crash-test/after`, { method: "POST", body: "again" });
  expect(after.status).toBe(200);

  const db = new Database(join(dataDir, "weir.db"), { readonly: true });
  try {
    const read = db.prepare<{ body: Uint8Array }, [string]>(
      "SELECT body FROM captured_requests WHERE id = ?",
    );
    const missing: string[] = [];
    const altered: string[] = [];
    for (const [id, body] of acknowledged) {
      const row = read.get(id);
      if (!row) missing.push(id);
      else if (!Buffer.from(row.body).equals(Buffer.from(body))) altered.push(id);
    }
    expect({ acknowledged: acknowledged.size >= BEFORE_KILL, missing, altered }).toEqual({
      acknowledged: true,
      missing: [],
      altered: [],
    });
  } finally {
    db.close();
  }

  // The search index is written after the captures' commit: whatever the kill left out of it is
  // added before a search reads it, and nothing is in it twice.
  second.proc.kill("SIGKILL");
  await second.proc.exited;
  const reopened = openDatabase(dataDir);
  try {
    const sender = 3;
    const found = createRequestsRepo(reopened)
      .listMatching("ep-crash", { ...NO_FILTER, q: `s${sender}` }, 0, 10_000)
      .map((r) => r.id);
    const stored = reopened.sqlite
      .query<{ id: string }, [string]>("SELECT id FROM captured_requests WHERE path = ?")
      .all(`/s${sender}`)
      .map((r) => r.id);
    const hits = reopened.sqlite
      .query<{ n: number }, [string]>(
        "SELECT count(*) AS n FROM captured_requests_search WHERE captured_requests_search MATCH ?",
      )
      .get(`"s${sender}"`);
    expect({ found: found.sort(), hits: hits?.n }).toEqual({
      found: stored.sort(),
      hits: stored.length,
    });
  } finally {
    reopened.close();
  }
}, 60_000);
