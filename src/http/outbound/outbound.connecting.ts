/** How many TCP connects may be pending at once: per origin and over all origins. */
export interface ConnectingLimits {
  perOrigin: number;
  total: number;
}

/** No connect can be started now: too many to the same origin, or in all, are still pending. */
export class ConnectingLimitError extends Error {
  // A connect that does not complete is what a timeout records; the attempt is retried as one.
  readonly code = "timeout";
  override name = "ConnectingLimitError";
}

/**
 * Counts the TCP connects that have not completed yet. Bun.connect offers no way to cancel a
 * pending connect (no handle before it opens, no signal), so a connect to an address that never
 * answers (packets dropped, no reset) holds its file descriptor until the kernel gives up, about
 * two minutes, long after its send ended. Retries, monitors and many destinations pointed at
 * such addresses would pile these up until the process runs out of descriptors; capping them
 * makes further sends fail at once instead, without touching a socket.
 */
export class PendingConnects {
  private readonly byOrigin = new Map<string, number>();
  private count = 0;

  constructor(private readonly limits: ConnectingLimits) {}

  /** Takes a slot for a connect to `key`, or throws when the origin or the total is at its cap. */
  acquire(key: string): void {
    const forOrigin = this.byOrigin.get(key) ?? 0;
    if (forOrigin >= this.limits.perOrigin) {
      throw new ConnectingLimitError(
        `${forOrigin} connects to ${key} still pending (it does not answer): none opened`,
      );
    }
    if (this.count >= this.limits.total) {
      throw new ConnectingLimitError(
        `${this.count} outbound connects still pending (addresses that do not answer): none opened`,
      );
    }
    this.byOrigin.set(key, forOrigin + 1);
    this.count += 1;
  }

  /** Gives the slot back once the connect completed or failed (not when its send gave up). */
  release(key: string): void {
    const forOrigin = this.byOrigin.get(key) ?? 0;
    if (forOrigin <= 1) this.byOrigin.delete(key);
    else this.byOrigin.set(key, forOrigin - 1);
    this.count -= 1;
  }

  /** Connects pending now, to one origin or in all (for tests and metrics). */
  pending(key?: string): number {
    return key === undefined ? this.count : (this.byOrigin.get(key) ?? 0);
  }
}
