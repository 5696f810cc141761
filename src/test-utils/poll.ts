export interface PollOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** Shown when the deadline passes. */
  what?: string;
}

/**
 * Calls `probe` until it returns something other than undefined/false, or throws after the
 * deadline. The way tests wait: never a fixed sleep.
 */
export async function pollUntil<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs = 5000, intervalMs = 10, what = "condition" }: PollOptions = {},
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let lastError: unknown;
  while (performance.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    await Bun.sleep(intervalMs);
  }
  const cause = lastError ? `; last error: ${(lastError as Error).message}` : "";
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
}
