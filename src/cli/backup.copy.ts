import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { reason, StartupError } from "../db/db.open.ts";

/** The hidden subcommand the child weir runs to do the copy. */
export const VACUUM_COMMAND = "__vacuum-into";

/**
 * The argv that starts this same weir again. Inside a `bun build --compile` binary,
 * process.execPath is the weir binary itself and takes the subcommand directly; under
 * `bun src/main.ts` it is bun, which needs the script path first.
 */
export function selfCommand(): string[] {
  if (isCompiled()) return [process.execPath];
  const sourceMain = join(import.meta.dir, "..", "main.ts");
  return [process.execPath, existsSync(sourceMain) ? sourceMain : Bun.main];
}

function isCompiled(): boolean {
  // Modules of a compiled executable live in Bun's embedded file system.
  return (
    import.meta.path.startsWith("/$bunfs/") || /^[A-Za-z]:[\\/]~BUN[\\/]/.test(import.meta.path)
  );
}

/**
 * Runs `VACUUM INTO target` in a child weir. VACUUM INTO blocks its thread for the whole copy;
 * in a child process this one stays free to report progress, and no extra entrypoint has to
 * be compiled into the binary (a Worker would need one). Aborting `signal` kills the child.
 */
export async function vacuumInChild(
  source: string,
  target: string,
  signal: AbortSignal,
): Promise<void> {
  const child = Bun.spawn([...selfCommand(), VACUUM_COMMAND, source, target], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
    signal,
  });
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  if (code === 0) return;
  if (signal.aborted) throw new StartupError("backup interrupted");
  // The child fails like any weir command: its last `weir: <reason>` line says why.
  const line = stderr
    .split("\n")
    .reverse()
    .find((l) => l.startsWith("weir: "));
  const why =
    line?.slice("weir: ".length) ??
    `copy process ended with ${child.signalCode ?? `exit code ${code}`}`;
  throw new StartupError(why);
}

/**
 * The child's side: one read transaction copies a consistent snapshot, so writers (WAL) keep
 * going. The connection is read-only: a backup never writes to the live database.
 */
export function vacuumInto(source: string, target: string): void {
  let db: Database | undefined;
  // The copy holds password hashes and payloads: owner-only from its first byte.
  process.umask(0o077);
  try {
    db = new Database(source, { readonly: true });
    db.run("PRAGMA busy_timeout = 5000");
    db.query("VACUUM INTO ?").run(target);
  } catch (error) {
    throw new StartupError(`cannot copy ${source}: ${reason(error)}`);
  } finally {
    db?.close();
  }
}
