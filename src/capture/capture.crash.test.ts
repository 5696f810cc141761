import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { runMigrations } from "../db/db.migrate.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { openDatabase } from "../db/db.open.ts";
import { seedEndpoint, seedOrganization } from "../test-utils/capture-fixtures.ts";
import { freePort } from "../test-utils/free-port.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";

const MAIN = join(import.meta.dir, "../main.ts");
const SENDERS = 24;
/** Acknowledged captures to wait for before the kill. */
const BEFORE_KILL = 300;
const tempDir = useTempDirs("weir-crash-");
const running: Subprocess[] = [];

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});

/** `weir serve` as its own process on `dataDir`, at the default durability (full). */
async function startWeir(dataDir: string): Promise<{ proc: Subprocess; url: string }> {
  const port = freePort();
  // The caller's WEIR_* settings must not change what is tested (durability above all).
  const env: Record<string, string | undefined> = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith("WEIR_")),
  );
  Object.assign(env, { WEIR_CAPTURE_RATE_LIMIT: "off", WEIR_LOG_LEVEL: "error" });
  const proc = Bun.spawn(
    [
      process.execPath,
      MAIN,
      "serve",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--data-dir",
      dataDir,
    ],
    { env, stdout: "ignore", stderr: "inherit" },
  );
  running.push(proc);
  const url = `http://127.0.0.1:${port}`;
  await pollUntil(async () => (await fetch(`${url}/healthz`).catch(() => null))?.status === 200, {
    timeoutMs: 15_000,
    what: "weir serve to answer /healthz",
  });
  return { proc, url };
}

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
  let killed = false;
  const sender = async (index: number) => {
    for (let n = 0; !killed; n++) {
      const body = bodyFor(index, n);
      try {
        const response = await fetch(`${first.url}/w/crash-test/s${index}`, {
          method: "POST",
          body,
        });
        if (response.status !== 200) throw new Error(`status ${response.status}`);
        acknowledged.set(((await response.json()) as { request_id: string }).request_id, body);
      } catch (error) {
        // Only the kill may break a request; anything before it is a failure of the test.
        if (!killed) throw error;
      }
    }
  };
  const senders = Array.from({ length: SENDERS }, (_, i) => sender(i));
  await pollUntil(() => acknowledged.size >= BEFORE_KILL, {
    timeoutMs: 15_000,
    what: `${BEFORE_KILL} captures`,
  });
  // Mid-stream: every sender has a request in flight right now.
  first.proc.kill("SIGKILL");
  killed = true;
  await first.proc.exited;
  await Promise.all(senders);
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
}, 60_000);
