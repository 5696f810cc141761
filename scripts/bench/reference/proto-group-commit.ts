/**
 * REFERENCE PROTOTYPE, not Weir code: the ~40-line durable catcher the capture target is set
 * against ("capture at the stack's limit"), kept here as a benchmark fixture so the harness can
 * run it from a clean clone. It is the stack's practical limit for durable capture: Bun.serve +
 * bun:sqlite (WAL, synchronous=FULL), one transaction per event-loop turn (or 500 rows), answer
 * only after COMMIT. Stores id, slug, method, path, query, headers as JSON, body bytes, size,
 * created_at: roughly what a catcher must keep. Only formatting and types differ from the
 * original; behaviour is the same.
 *
 *   bun scripts/bench/reference/proto-group-commit.ts <port> [file.db]
 */
import { Database } from "bun:sqlite";

const port = Number(process.argv[2]);
const file = process.argv[3] ?? "proto.db";
const db = new Database(file, { create: true });
db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;");
db.exec(`CREATE TABLE IF NOT EXISTS requests (id TEXT PRIMARY KEY, slug TEXT NOT NULL, method TEXT NOT NULL, path TEXT NOT NULL,
  query TEXT NOT NULL, headers TEXT NOT NULL, body BLOB NOT NULL, size INTEGER NOT NULL, created_at INTEGER NOT NULL)`);
const ins = db.prepare("INSERT INTO requests VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
type Row = [string, string, string, string, string, string, Uint8Array, number, number];
let rows: Row[] = [];
let waiters: (() => void)[] = [];
let pending = false;
const commit = db.transaction((batch: Row[]) => {
  for (const r of batch) ins.run(...r);
});
function flush() {
  pending = false;
  const batch = rows;
  const ws = waiters;
  rows = [];
  waiters = [];
  if (batch.length) {
    commit(batch);
    for (const w of ws) w();
  }
}
Bun.serve({
  port,
  hostname: "127.0.0.1",
  async fetch(req) {
    const url = new URL(req.url);
    const m = url.pathname.match(/^\/w\/([^/]+)/);
    if (!m) return new Response("not found", { status: 404 });
    const body = new Uint8Array(await req.arrayBuffer());
    const id = Bun.randomUUIDv7();
    await new Promise<void>((res) => {
      rows.push([
        id,
        m[1] as string,
        req.method,
        url.pathname,
        url.search,
        JSON.stringify(req.headers.toJSON()),
        body,
        body.length,
        Date.now(),
      ]);
      waiters.push(res);
      if (rows.length >= 500) flush();
      else if (!pending) {
        pending = true;
        setImmediate(flush);
      }
    });
    return Response.json({ message: "Webhook received", request_id: id });
  },
});
