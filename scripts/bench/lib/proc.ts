/** Reading a process's memory and CPU time from /proc (Linux). */

/** VmRSS in KiB from the text of /proc/<pid>/status; null when absent (e.g. a zombie). */
export function parseVmRssKiB(status: string): number | null {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  return match?.[1] ? Number(match[1]) : null;
}

/** Current resident set size of `pid` in KiB; null when it cannot be read (gone, not Linux). */
export async function readRssKiB(pid: number): Promise<number | null> {
  try {
    return parseVmRssKiB(await Bun.file(`/proc/${pid}/status`).text());
  } catch {
    return null;
  }
}

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ; 100 on every Linux we run). */
const TICKS_PER_SECOND = 100;

/**
 * User + system CPU seconds from the text of /proc/<pid>/stat; null when unreadable. The command
 * name (field 2) may hold spaces, so fields are counted from after its closing parenthesis.
 */
export function parseCpuSeconds(stat: string): number | null {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of the whole line: 12th and 13th after the name.
  const user = Number(fields[11]);
  const system = Number(fields[12]);
  return Number.isFinite(user) && Number.isFinite(system)
    ? (user + system) / TICKS_PER_SECOND
    : null;
}

/** CPU seconds `pid` has used so far (all its threads); null when it cannot be read. */
export async function readCpuSeconds(pid: number): Promise<number | null> {
  try {
    return parseCpuSeconds(await Bun.file(`/proc/${pid}/stat`).text());
  } catch {
    return null;
  }
}
