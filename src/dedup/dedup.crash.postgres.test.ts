import { afterEach, expect, test } from "bun:test";
import { SQL, type Subprocess } from "bun";
import { dedupSource, ingestOrder, ingestOrdersUntilKilled } from "../test-utils/crash-routes.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { startWeirProcess } from "../test-utils/weir-process.ts";

const SENDERS = 16;
/** Acknowledged ingests to wait for before the kill. */
const BEFORE_KILL = 200;
const databases = usePgDatabases();
const tempDir = useTempDirs("weir-dedup-crash-pg-");
const running: Subprocess[] = [];

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});

/** How many stored events carry each dedup id, and what else the source's ingests wrote. */
async function storedState(sql: SQL, sourceId: string) {
  const rows: { body: Uint8Array }[] =
    await sql`SELECT body FROM events WHERE source_id = ${sourceId}`;
  const copies = new Map<string, number>();
  for (const row of rows) {
    const id = (JSON.parse(Buffer.from(row.body).toString()) as { id: string }).id;
    copies.set(id, (copies.get(id) ?? 0) + 1);
  }
  const [keys] =
    await sql`SELECT count(*)::int AS n FROM dedup_shared_keys WHERE source_id = ${sourceId}`;
  const [counted] = await sql`
    SELECT coalesce(sum(total_requests), 0)::int AS total,
           coalesce(sum(duplicates_rejected), 0)::int AS duplicates
      FROM dedup_counters WHERE source_id = ${sourceId}`;
  return {
    copies,
    events: rows.length,
    keys: keys.n as number,
    counted: { total: counted.total as number, duplicates: counted.duplicates as number },
  };
}

test("on PostgreSQL, kill -9 under ingest load: each stored event's key is claimed, only those, and a duplicate never makes a second event", async () => {
  const db = await databases.create();
  const dataDir = tempDir();
  const env = { WEIR_DATABASE_URL: db.url, WEIR_SECRET_KEY: "cd".repeat(32) };
  const first = await startWeirProcess(dataDir, env, running);
  const sourceId = await dedupSource(first.url);
  const { sent, acknowledged } = await ingestOrdersUntilKilled(first.proc, first.url, sourceId, {
    senders: SENDERS,
    beforeKill: BEFORE_KILL,
  });
  expect(first.proc.signalCode).toBe("SIGKILL");

  const sql = new SQL(db.url, { max: 1 });
  try {
    // Keys live in a table here, not in an index rebuilt at start: the key, the event and the
    // source's counter committed together or not at all, so each figure matches the events.
    const atKill = await storedState(sql, sourceId);
    expect({
      lost: [...acknowledged].filter((id) => !atKill.copies.has(id)),
      twice: [...atKill.copies].filter(([, n]) => n > 1).map(([id]) => id),
      keys: atKill.keys,
      counted: atKill.counted,
    }).toEqual({
      lost: [],
      twice: [],
      keys: atKill.events,
      counted: { total: atKill.events, duplicates: 0 },
    });

    // Every request sent, acknowledged or in flight at the kill, is a duplicate after the restart
    // exactly when its event was stored; one that is not makes its one event now.
    const second = await startWeirProcess(dataDir, env, running);
    const wrong: string[] = [];
    for (const id of sent) {
      const answer = (await (await ingestOrder(second.url, sourceId, id)).json()) as {
        duplicate?: boolean;
      };
      if ((answer.duplicate === true) !== atKill.copies.has(id)) wrong.push(id);
    }
    expect({ checked: sent.length >= BEFORE_KILL, wrong }).toEqual({ checked: true, wrong: [] });

    const after = await storedState(sql, sourceId);
    expect({
      missing: sent.filter((id) => !after.copies.has(id)),
      twice: [...after.copies].filter(([, n]) => n > 1).map(([id]) => id),
      events: after.events,
      keys: after.keys,
    }).toEqual({ missing: [], twice: [], events: new Set(sent).size, keys: new Set(sent).size });
  } finally {
    await sql.close();
  }
}, 90_000);
