import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { killMidStream, registerOperator, startWeirProcess } from "../test-utils/weir-process.ts";

const SENDERS = 16;
/** Acknowledged ingests to wait for before the kill. */
const BEFORE_KILL = 200;
const tempDir = useTempDirs("weir-dedup-crash-");
const running: Subprocess[] = [];

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});

const startWeir = (dataDir: string) => startWeirProcess(dataDir, {}, running);

/** A deduplicating source, made through the API as an operator would; its id. */
async function createSource(url: string): Promise<string> {
  const token = await registerOperator(url);
  const source = await fetch(`${url}/api/v1/sources`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({
      name: "crash",
      type: "webhook",
      deduplication_config: { body_path: "body.id", ttl_seconds: 3600 },
    }),
  });
  expect(source.status).toBe(201);
  return ((await source.json()) as { data: { id: string } }).data.id;
}

const ingest = (url: string, sourceId: string, id: string) =>
  fetch(`${url}/api/v1/sources/${sourceId}/ingest`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ id, amount: 5 }),
  });

test("kill -9 under ingest load: after the restart every stored event's key is known, and only those", async () => {
  const dataDir = tempDir();
  const first = await startWeir(dataDir);
  const sourceId = await createSource(first.url);
  const acknowledged = new Set<string>();
  const sent: string[] = [];
  await killMidStream({
    proc: first.proc,
    senders: SENDERS,
    async send(index, n) {
      const id = `evt_${index}_${n}`;
      sent.push(id);
      const response = await ingest(first.url, sourceId, id);
      const answer = (await response.json()) as { message: string };
      if (response.status !== 200 || answer.message !== "accepted") {
        throw new Error(`status ${response.status} ${answer.message}`);
      }
      acknowledged.add(id);
    },
    ready: () => acknowledged.size >= BEFORE_KILL,
    timeoutMs: 20_000,
    what: `${BEFORE_KILL} ingests`,
  });
  expect(first.proc.signalCode).toBe("SIGKILL");

  const db = new Database(join(dataDir, "weir.db"), { readonly: true });
  const stored = new Set(
    db
      .query<{ body: Uint8Array }, [string]>("SELECT body FROM events WHERE source_id = ?")
      .all(sourceId)
      .map((row) => (JSON.parse(Buffer.from(row.body).toString()) as { id: string }).id),
  );
  db.close();
  expect([...acknowledged].filter((id) => !stored.has(id))).toEqual([]);

  // Every request sent, acknowledged or in flight at the kill, is a duplicate after the restart
  // exactly when its event was stored: the key and the event committed together or not at all.
  const second = await startWeir(dataDir);
  const wrong: string[] = [];
  for (const id of sent) {
    const answer = (await (await ingest(second.url, sourceId, id)).json()) as {
      duplicate?: boolean;
    };
    if ((answer.duplicate === true) !== stored.has(id)) wrong.push(id);
  }
  expect({ checked: sent.length >= BEFORE_KILL, wrong }).toEqual({ checked: true, wrong: [] });
}, 90_000);
