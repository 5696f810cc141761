/**
 * A wall-clock kill timer that can be paused: a run waiting on a host function is not running,
 * so that wait must not count towards killing its worker.
 */
export interface Watchdog {
  pause(): void;
  resume(): void;
  cancel(): void;
}

export function startWatchdog(budgetMs: number, onExpire: () => void): Watchdog {
  let remaining = budgetMs;
  let startedAt = performance.now();
  let cancelled = false;
  let timer: ReturnType<typeof setTimeout> | null = setTimeout(onExpire, remaining);
  return {
    pause() {
      if (timer === null) return;
      clearTimeout(timer);
      timer = null;
      remaining -= performance.now() - startedAt;
    },
    resume() {
      if (timer !== null || cancelled) return;
      startedAt = performance.now();
      timer = setTimeout(onExpire, Math.max(0, remaining));
    },
    cancel() {
      cancelled = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}
