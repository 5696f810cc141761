import { Database } from "bun:sqlite";
import type { KumaDockerHosts, KumaRow } from "./monitors.import-kuma.ts";

/**
 * More monitors than any real Kuma holds: such a file is refused before its rows are read, as
 * the import keeps them all in memory and writes them in one transaction.
 */
export const MAX_KUMA_MONITORS = 10_000;

/** The first bytes of every SQLite database file. */
const SQLITE_HEADER = "SQLite format 3\0";

/** Whether `bytes` start like a SQLite database (how a Kuma data file is told from YAML/JSON). */
export function isSqliteFile(bytes: Uint8Array): boolean {
  return new TextDecoder().decode(bytes.subarray(0, SQLITE_HEADER.length)) === SQLITE_HEADER;
}

/**
 * Reads Uptime Kuma's monitors and docker hosts from its data file, read-only: the file may be
 * a live Kuma's, and an import must never change it. Throws with a readable message when the
 * file holds no `monitor` table.
 */
export function readKumaFile(path: string): { rows: KumaRow[]; dockerHosts: KumaDockerHosts } {
  const db = new Database(path, { readonly: true });
  try {
    const tables = new Set(
      db
        .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all()
        .map((t) => t.name),
    );
    if (!tables.has("monitor")) throw new Error(`${path} has no monitor table (not Uptime Kuma?)`);
    const count = db.query<{ n: number }, []>("SELECT count(*) AS n FROM monitor").get()?.n ?? 0;
    if (count > MAX_KUMA_MONITORS) {
      throw new Error(
        `${path} holds ${count} monitors; an import takes at most ${MAX_KUMA_MONITORS}`,
      );
    }
    const rows = db.query<KumaRow, []>("SELECT * FROM monitor ORDER BY id").all();
    const dockerHosts: KumaDockerHosts = new Map();
    if (tables.has("docker_host")) {
      const hosts = db
        .query<{ id: number; docker_daemon: string | null }, []>(
          "SELECT id, docker_daemon FROM docker_host",
        )
        .all();
      for (const host of hosts)
        if (host.docker_daemon) dockerHosts.set(host.id, host.docker_daemon);
    }
    return { rows, dockerHosts };
  } finally {
    db.close();
  }
}
