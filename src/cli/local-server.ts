import { readDataDirLock } from "../db/db.lock.ts";
import type { Config } from "../shared/config.table.ts";

/** Where a command on this machine reaches the server of a data dir. */
export interface LocalServer {
  /** `http://host:port` to connect to from this machine. */
  url: string;
  /** The public base URL the server was started with; "" when URLs follow each request's Host. */
  baseUrl: string;
  host: string;
  port: number;
  /** `lock`: as the server that holds (or last held) the data dir's lock was started; else config. */
  from: "lock" | "config";
  pid?: number;
}

const ALL_INTERFACES = new Set(["", "0.0.0.0", "::", "[::]"]);

/** The address to dial for a server listening on `host`: loopback when it listens everywhere. */
export function connectUrl(host: string, port: number): string {
  const name = ALL_INTERFACES.has(host) ? "127.0.0.1" : host;
  const bracketed = name.includes(":") && !name.startsWith("[") ? `[${name}]` : name;
  return `http://${bracketed}:${port}`;
}

/**
 * The server of `config.data_dir`. `weir serve` records its host, port and base URL in the lock
 * file, flags included, which this command's own config cannot see; without that record (no
 * server started yet, an older lock, a port left to the system) config says where it would be.
 */
export function findLocalServer(
  config: Pick<Config, "data_dir" | "host" | "port" | "base_url">,
): LocalServer {
  const holder = readDataDirLock(config.data_dir);
  if (holder?.port) {
    const host = holder.host ?? config.host;
    return {
      url: connectUrl(host, holder.port),
      baseUrl: holder.baseUrl ?? "",
      host,
      port: holder.port,
      from: "lock",
      pid: holder.pid,
    };
  }
  return {
    url: connectUrl(config.host, config.port),
    baseUrl: config.base_url,
    host: config.host,
    port: config.port,
    from: "config",
  };
}
