import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { dedupSource, ingestOrder, ingestOrdersUntilKilled } from "../test-utils/crash-routes.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { startWeirProcess } from "../test-utils/weir-process.ts";

const SENDERS = 16;
/** Acknowledged ingests to wait for before the kill. */
const BEFORE_KILL = 200;
const tempDir = useTempDirs("weir-dedup-crash-");
const running: Subprocess[] = [];

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});

const startWeir = (dataDir: string) => startWeirProcess(dataDir, {}, running);

test("kill -9 under ingest load: after the restart every stored event's key is known, and only those", async () => {
  const dataDir = tempDir();
  const first = await startWeir(dataDir);
  const sourceId = await dedupSource(first.url);
  const { sent, acknowledged } = await ingestOrdersUntilKilled(first.proc, first.url, sourceId, {
    senders: SENDERS,
    beforeKill: BEFORE_KILL,
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
    const answer = (await (await ingestOrder(second.url, sourceId, id)).json()) as {
      duplicate?: boolean;
    };
    if ((answer.duplicate === true) !== stored.has(id)) wrong.push(id);
  }
  expect({ checked: sent.length >= BEFORE_KILL, wrong }).toEqual({ checked: true, wrong: [] });
}, 90_000);
