/** Connects left pending by sends that gave up on them: per origin, and in all. */
export interface ConnectingLimits {
  perOrigin: number;
  total: number;
}

/** No connect is started: earlier connects to the origin still hang after their sends ended. */
export class ConnectingLimitError extends Error {
  // A connect that does not complete is what a timeout records; the attempt is retried as one.
  readonly code = "timeout";
  override name = "ConnectingLimitError";
}

/**
 * Counts the connects abandoned while pending: their send's deadline or abort came first.
 * Bun.connect offers no way to cancel a pending connect (no handle before it opens, no signal),
 * so one to an address that never answers (packets dropped, no reset) keeps its descriptor until
 * the kernel gives up, about two minutes, long after its send ended. Retries, monitors and many
 * destinations pointed at such addresses would pile these up until the process runs out of
 * descriptors. A connect still within its send's deadline is not counted: callers bound how many
 * sends they run at once, and a burst to a healthy origin opens many connects for a moment.
 */
export class AbandonedConnects {
  private readonly byOrigin = new Map<string, number>();
  private count = 0;

  constructor(private readonly limits: ConnectingLimits) {}

  /**
   * Throws instead of letting a connect start: to an origin with `perOrigin` abandoned connects;
   * to one with any once half of `total` hang in all (the other half stays for origins not known
   * to hang, so one org's dead addresses do not stop every other's deliveries at once); to any
   * origin at `total`, since a fresh origin may hang too (names can be made up without end).
   */
  admit(key: string): void {
    const forOrigin = this.byOrigin.get(key) ?? 0;
    if (forOrigin >= this.limits.perOrigin) {
      throw new ConnectingLimitError(
        `${forOrigin} earlier connects to ${key} still pending (it does not answer): none opened`,
      );
    }
    if (this.count >= this.limits.total || (forOrigin > 0 && this.count * 2 >= this.limits.total)) {
      throw new ConnectingLimitError(
        `${this.count} abandoned outbound connects still pending, ${forOrigin} to ${key}: none opened`,
      );
    }
  }

  /** A send gave up on its connect while the connect was pending. */
  abandon(key: string): void {
    this.byOrigin.set(key, (this.byOrigin.get(key) ?? 0) + 1);
    this.count += 1;
  }

  /** An abandoned connect completed or failed: its socket is gone. */
  settle(key: string): void {
    const forOrigin = this.byOrigin.get(key) ?? 0;
    if (forOrigin <= 1) this.byOrigin.delete(key);
    else this.byOrigin.set(key, forOrigin - 1);
    this.count -= 1;
  }
}
