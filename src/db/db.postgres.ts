import { SQL } from "bun";
import { optionalPostgresUrl, urlWithoutPassword } from "../shared/config.validators.ts";
import { reason, StartupError } from "./db.open.ts";
import type { PostgresDb } from "./db.postgres-handle.ts";

/** The oldest PostgreSQL Weir runs on. */
export const MIN_POSTGRES_MAJOR = 14;

export interface PostgresOptions {
  /** Connections the pool opens at most (`database_pool_size`). */
  poolSize?: number;
  /** Seconds to wait for a connection before giving up. */
  connectTimeoutSeconds?: number;
}

export interface PostgresServer {
  /** `server_version_num`, e.g. 150018 for 15.18. */
  versionNum: number;
  /** `server_version`, e.g. "15.18 (Debian 15.18-0+deb12u1)". */
  version: string;
}

/**
 * Opens a pool on `url` and proves it works before returning: one connection is made, and the
 * server must be PostgreSQL 14 or newer (the cluster's leader lock relies on `client_connection_check_interval`). Every failure is a one-line StartupError naming the
 * database without its password.
 */
export async function openPostgres(
  url: string,
  options: PostgresOptions = {},
): Promise<PostgresDb> {
  const sql = connectPostgres(url, options);
  try {
    requireSupportedServer(await postgresServer(sql, url));
  } catch (error) {
    await sql.close();
    throw error;
  }
  return { dialect: "postgres", sql, close: () => sql.close() };
}

/** The pool alone, not yet connected (connections open on first use). */
export function connectPostgres(url: string, options: PostgresOptions = {}): SQL {
  try {
    if (optionalPostgresUrl(url) === "") throw new Error("no URL given");
  } catch (error) {
    throw new StartupError(`database URL ${urlWithoutPassword(url)} ${reason(error)}`);
  }
  return new SQL(url, {
    max: options.poolSize ?? 20,
    connectionTimeout: options.connectTimeoutSeconds ?? 10,
  });
}

/** Asks the server who it is; a failed connection becomes a one-line StartupError. */
export async function postgresServer(sql: SQL, url: string): Promise<PostgresServer> {
  try {
    const [row] = await sql`
      SELECT current_setting('server_version_num')::int AS "versionNum",
             current_setting('server_version') AS version`;
    return row as PostgresServer;
  } catch (error) {
    throw new StartupError(connectionProblem(url, error));
  }
}

export function requireSupportedServer(server: PostgresServer): void {
  const major = Math.floor(server.versionNum / 10_000);
  if (major < MIN_POSTGRES_MAJOR) {
    throw new StartupError(
      `PostgreSQL ${server.version} is too old: Weir needs PostgreSQL ${MIN_POSTGRES_MAJOR} or newer`,
    );
  }
}

/** Why a connection failed, in words an operator acts on, never quoting the password. */
export function connectionProblem(url: string, error: unknown): string {
  const where = `PostgreSQL at ${urlWithoutPassword(url)}`;
  const code = (error as { code?: string; errno?: string } | null) ?? {};
  if (code.code === "ERR_POSTGRES_CONNECTION_REFUSED") {
    return `cannot connect to ${where}: connection refused or host unreachable`;
  }
  if (
    code.code === "ERR_POSTGRES_CONNECTION_FAILED" ||
    code.code === "ERR_POSTGRES_CONNECTION_TIMEOUT"
  ) {
    return `cannot connect to ${where}: no answer in time (connection closed or timed out)`;
  }
  if (code.errno === "28P01" || code.errno === "28000") {
    return `cannot log in to ${where}: wrong user name or password`;
  }
  if (code.errno === "3D000") return `cannot connect to ${where}: the database does not exist`;
  return `cannot connect to ${where}: ${withoutSecret(reason(error), url)}`;
}

function withoutSecret(message: string, url: string): string {
  let password = "";
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {}
  return password.length > 0 ? message.replaceAll(password, "***") : message;
}
