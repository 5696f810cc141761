/** Reading a process's memory from /proc (Linux). */

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
