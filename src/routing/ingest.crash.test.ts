import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { freePort } from "../test-utils/free-port.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { killMidStream, registerOperator, startWeirProcess } from "../test-utils/weir-process.ts";

const SENDERS = 16;
/** Acknowledged ingests to wait for before the kill. */
const BEFORE_KILL = 200;
const tempDir = useTempDirs("weir-ingest-crash-");
const running: Subprocess[] = [];

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});

const startWeir = (dataDir: string) => startWeirProcess(dataDir, {}, running);

/** A source whose bridge has one http destination, made through the API as an operator would. */
async function createRoute(url: string): Promise<string> {
  const token = await registerOperator(url);
  const bridge = await fetch(`${url}/api/v1/bridges`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({
      name: "crash",
      source: { name: "crash source", type: "webhook" },
      // Nothing listens there: deliveries stay in the outbox, which is what is checked.
      destinations: [{ name: "down", type: "http", url: `http://127.0.0.1:${freePort()}/` }],
    }),
  });
  expect(bridge.status).toBe(201);
  const sources = await fetch(`${url}/api/v1/sources`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const [source] = ((await sources.json()) as { data: { slug: string }[] }).data;
  if (!source) throw new Error("no source");
  return source.slug;
}

test("kill -9 under ingest load loses no acknowledged event, and each keeps its delivery", async () => {
  const dataDir = tempDir();
  const first = await startWeir(dataDir);
  const slug = await createRoute(first.url);
  const acknowledged = new Map<string, string>();
  await killMidStream({
    proc: first.proc,
    senders: SENDERS,
    async send(index, n) {
      const body = JSON.stringify({ sender: index, n, pad: "x".repeat((n % 5) * 200) });
      const response = await fetch(`${first.url}/in/${slug}/s${index}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      if (response.status !== 200) throw new Error(`status ${response.status}`);
      acknowledged.set(((await response.json()) as { event_id: string }).event_id, body);
    },
    ready: () => acknowledged.size >= BEFORE_KILL,
    timeoutMs: 20_000,
    what: `${BEFORE_KILL} ingests`,
  });
  expect(first.proc.signalCode).toBe("SIGKILL");

  const second = await startWeir(dataDir);
  const after = await fetch(`${second.url}/in/${slug}/after`, { method: "POST", body: "{}" });
  expect(after.status).toBe(200);

  const db = new Database(join(dataDir, "weir.db"), { readonly: true });
  try {
    const readEvent = db.prepare<{ body: Uint8Array }, [string]>(
      "SELECT body FROM events WHERE id = ?",
    );
    const countDeliveries = db.prepare<{ n: number }, [string]>(
      "SELECT count(*) AS n FROM deliveries WHERE kind = 'event' AND subject_id = ?",
    );
    // The event's state row is written with it: its open count is its deliveries not ended.
    const readState = db.prepare<{ open: number; unended: number }, [string]>(
      `SELECT s.open_deliveries AS open,
         (SELECT count(*) FROM deliveries d WHERE d.kind = 'event' AND d.subject_id = s.event_id
            AND d.status NOT IN ('delivered', 'failed')) AS unended
       FROM event_states s WHERE s.event_id = ?`,
    );
    const missing: string[] = [];
    const altered: string[] = [];
    const withoutDelivery: string[] = [];
    const wrongState: string[] = [];
    for (const [id, body] of acknowledged) {
      const row = readEvent.get(id);
      if (!row) missing.push(id);
      else if (Buffer.from(row.body).toString() !== body) altered.push(id);
      if (countDeliveries.get(id)?.n !== 1) withoutDelivery.push(id);
      const state = readState.get(id);
      if (!state || state.open !== state.unended) wrongState.push(id);
    }
    expect(acknowledged.size).toBeGreaterThanOrEqual(BEFORE_KILL);
    expect({ missing, altered, withoutDelivery, wrongState }).toEqual({
      missing: [],
      altered: [],
      withoutDelivery: [],
      wrongState: [],
    });
  } finally {
    db.close();
  }
}, 90_000);
