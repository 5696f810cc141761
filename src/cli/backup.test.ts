import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { preparedDir, spawnCli, runCli as weir } from "../test-utils/cli.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";

const tempDir = useTempDirs();

/** A prepared data dir whose weir.db also holds `rows` rows in a scratch table. */
function dirWithRows(rows: number): string {
  const dir = preparedDir(tempDir());
  const db = new Database(join(dir, "weir.db"));
  db.run("CREATE TABLE scratch (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  const insert = db.prepare("INSERT INTO scratch (v) VALUES (?)");
  db.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run(`row ${i}`);
  })();
  db.close();
  return dir;
}

function inspect(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    const integrity = db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").all();
    const rows = db
      .query<{ n: number; top: number | null }, []>(
        "SELECT count(*) AS n, max(id) AS top FROM scratch",
      )
      .get();
    return {
      integrity: integrity.map((r) => r.integrity_check).join("; "),
      count: rows?.n ?? -1,
      top: rows?.top ?? 0,
    };
  } finally {
    db.close();
  }
}

/** Temp files of an unfinished backup (the copy and SQLite's journal for it). */
const leftovers = (dir: string) => readdirSync(dir).filter((name) => name.includes(".partial"));

/** A prepared data dir whose weir.db holds `mib` MiB of blobs, written in one statement. */
function bigDir(mib: number): string {
  const dir = preparedDir(tempDir());
  const db = new Database(join(dir, "weir.db"));
  db.run("CREATE TABLE big (b BLOB NOT NULL)");
  db.run(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${mib}) INSERT INTO big (b) SELECT zeroblob(1048576) FROM n`,
  );
  db.close();
  return dir;
}

describe("weir backup", () => {
  test("writes an owner-only copy that opens, passes integrity_check and holds the rows", () => {
    const dir = dirWithRows(250);
    const out = join(tempDir(), "copy.db");
    const run = weir(["backup", out, "--data-dir", dir]);
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    const [done, note] = run.stdout.trimEnd().split("\n");
    expect(done).toMatch(/^backed up .*weir\.db to .*copy\.db \(\d+ bytes, \d+ ms\)$/);
    expect(note).toBe(
      `keep a copy of ${join(dir, "secret.key")} with this backup (it is not inside): a restore without it cannot read stored secrets or logins`,
    );
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(inspect(out)).toEqual({ integrity: "ok", count: 250, top: 250 });
  });

  test("refuses to overwrite FILE unless --force", () => {
    const dir = dirWithRows(10);
    const outDir = tempDir();
    const out = join(outDir, "copy.db");
    expect(weir(["backup", out, "--data-dir", dir]).exitCode).toBe(0);
    const before = statSync(out).mtimeMs;
    const again = weir(["backup", out, "--data-dir", dir]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toMatch(/^weir: .*copy\.db already exists; pass --force to replace it\n$/);
    expect(statSync(out).mtimeMs).toBe(before);
    const forced = weir(["backup", out, "--force", "--data-dir", dir]);
    expect(forced.exitCode).toBe(0);
    expect(inspect(out).integrity).toBe("ok");
    expect(leftovers(outDir)).toEqual([]);
  });

  test("--json reports file, bytes, duration_ms and migrations", () => {
    const dir = dirWithRows(5);
    const out = join(tempDir(), "copy.db");
    const run = weir(["backup", out, "--json"], { WEIR_DATA_DIR: dir });
    expect(run.exitCode).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(Object.keys(report).sort()).toEqual([
      "bytes",
      "duration_ms",
      "file",
      "migrations",
      "secret_key",
    ]);
    expect(report.secret_key).toBe(join(dir, "secret.key"));
    expect(report.file).toBe(out);
    expect(report.bytes).toBe(statSync(out).size);
    expect(report.duration_ms).toBeGreaterThanOrEqual(0);
    expect(report.migrations).toBe(MIGRATIONS.length);
  });

  test("a missing database or target directory fails in one line and leaves no file", () => {
    const empty = tempDir();
    const out = join(tempDir(), "copy.db");
    const missing = weir(["backup", out, "--data-dir", empty]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toBe(
      `weir: no Weir database at ${join(empty, "weir.db")}: point --data-dir or WEIR_DATA_DIR at the server's data dir (weir serve creates it)\n`,
    );
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(empty)).toEqual([]);
    const badTarget = weir([
      "backup",
      join(empty, "nope", "copy.db"),
      "--data-dir",
      dirWithRows(1),
    ]);
    expect(badTarget.exitCode).toBe(1);
    expect(badTarget.stderr).toMatch(/^weir: directory .*nope does not exist\n$/);
  });

  test("a backup taken while another process inserts is a consistent snapshot", async () => {
    const dir = dirWithRows(0);
    const source = join(dir, "weir.db");
    const stopFile = join(dir, "stop");
    const writer = Bun.spawn(["bun", "-e", WRITER], {
      env: { ...process.env, DB: source, STOP: stopFile },
      stdout: "ignore",
      stderr: "inherit",
    });
    try {
      await pollUntil(() => inspect(source).count > 50, {
        timeoutMs: 10_000,
        what: "the writer to insert rows",
      });
      const out = join(tempDir(), "live.db");
      const backup = spawnCli(["backup", out, "--data-dir", dir]);
      const [code, stderr] = await Promise.all([backup.exited, new Response(backup.stderr).text()]);
      expect(stderr).toBe("");
      expect(code).toBe(0);
      // The writer was still going when the backup finished: the copy really ran alongside it.
      expect(writer.exitCode).toBeNull();
      await Bun.write(stopFile, "");
      expect(await writer.exited).toBe(0);
      const copy = inspect(out);
      const final = inspect(source);
      expect(copy.integrity).toBe("ok");
      expect(copy.count).toBeGreaterThan(50);
      expect(copy.count).toBeLessThanOrEqual(final.count);
      expect(copy.top).toBe(copy.count); // a prefix of the inserts, no gaps
    } finally {
      writer.kill();
    }
  });

  test("prints progress on stderr for a database above 32 MiB", () => {
    const dir = bigDir(40);
    const out = join(tempDir(), "big.db");
    const run = weir(["backup", out, "--data-dir", dir]);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toMatch(/^backup: \d+% \(\d+\.\d MiB of 4\d\.\d MiB\)$/m);
    expect(run.stderr).toMatch(/^backup: 100% /m);
    expect(statSync(out).size).toBeGreaterThan(40 * 1024 * 1024);
  });

  test("an interrupted backup leaves neither FILE nor a temp file", async () => {
    const dir = bigDir(200);
    const outDir = tempDir();
    const out = join(outDir, "cut.db");
    const backup = spawnCli(["backup", out, "--data-dir", dir]);
    await pollUntil(() => leftovers(outDir).length > 0, {
      timeoutMs: 10_000,
      what: "the temp file to appear",
    });
    backup.kill("SIGTERM");
    const [code, stderr] = await Promise.all([backup.exited, new Response(backup.stderr).text()]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^weir: backup interrupted\n$/m);
    expect(existsSync(out)).toBe(false);
    expect(leftovers(outDir)).toEqual([]);
  });

  test("stays quiet on stderr for a small database when stderr is not a terminal", () => {
    const run = weir(["backup", join(tempDir(), "small.db"), "--data-dir", dirWithRows(3)]);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe("");
  });
});

// Inserts one row per transaction until the stop file appears; bounded so it can never hang.
const WRITER = `
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
const db = new Database(process.env.DB);
db.run("PRAGMA busy_timeout = 5000");
db.run("PRAGMA synchronous = NORMAL");
const insert = db.prepare("INSERT INTO scratch (v) VALUES (?)");
const deadline = Date.now() + 15000;
for (let i = 0; Date.now() < deadline; i++) {
  insert.run("x".repeat(200));
  if (i % 25 === 0 && existsSync(process.env.STOP)) break;
}
db.close();
`;
