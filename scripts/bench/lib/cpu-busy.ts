/**
 * How busy each CPU is before the run starts. Other work on the server's core (a test suite, a
 * build) shows up as noise in every figure; saying so up front saves chasing a phantom regression.
 */

/** Per-cpu [busy, total] jiffies from the text of /proc/stat. */
export function parseProcStat(text: string): Map<number, { busy: number; total: number }> {
  const cpus = new Map<number, { busy: number; total: number }>();
  for (const match of text.matchAll(/^cpu(\d+)\s+([\d\s]+)$/gm)) {
    const fields = (match[2] ?? "").trim().split(/\s+/).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    // Fields 3 and 4 are idle and iowait: time the cpu had nothing to run.
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    cpus.set(Number(match[1]), { busy: total - idle, total });
  }
  return cpus;
}

/** Share (0..1) of each cpu that was busy over `sampleMs`; empty when /proc/stat is unreadable. */
export async function sampleCpuBusy(sampleMs = 500): Promise<Map<number, number>> {
  const read = async () => parseProcStat(await Bun.file("/proc/stat").text());
  try {
    const before = await read();
    await Bun.sleep(sampleMs);
    const after = await read();
    const busy = new Map<number, number>();
    for (const [cpu, end] of after) {
      const start = before.get(cpu);
      const total = end.total - (start?.total ?? 0);
      if (start && total > 0) busy.set(cpu, (end.busy - start.busy) / total);
    }
    return busy;
  } catch {
    return new Map();
  }
}

/** A warning line when a cpu the run uses is already busier than `threshold`; null otherwise. */
export function busyWarning(
  busy: Map<number, number>,
  cpus: readonly number[],
  threshold = 0.2,
): string | null {
  const hot = cpus.filter((cpu) => (busy.get(cpu) ?? 0) > threshold);
  if (!hot.length) return null;
  const list = hot
    .map((cpu) => `cpu ${cpu} ${Math.round((busy.get(cpu) ?? 0) * 100)}% busy`)
    .join(", ");
  return `!! before the run: ${list} with other work; expect noisy figures (ratios still compare like with like)`;
}
