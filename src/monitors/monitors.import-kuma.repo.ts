import { Database } from "bun:sqlite";
import type { KumaDockerHosts, KumaRow } from "./monitors.import-kuma.ts";

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
