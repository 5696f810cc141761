import type { OutboundConnection } from "./outbound.connection.ts";

/** How long before a server's announced idle timeout a connection is given up. */
const SERVER_MARGIN_MS = 1_000;

export interface PoolLimits {
  /** Idle connections kept per origin (scheme, host, port). */
  perOrigin: number;
  /** Idle connections kept over all origins. */
  total: number;
  /**
   * How long an idle connection is kept. Shorter than the keep-alive timeouts servers commonly
   * use (Node 5 s, Bun 10 s, nginx 75 s), so Weir usually closes first and rarely writes to a
   * socket the server is closing.
   */
  idleMs: number;
}

/**
 * Idle keep-alive connections by origin, most recently used first (the least likely to have
 * been closed by the server). Each connection stays pinned to the address that was checked when
 * it was opened; the policy does not change during a sender's life, so that check still holds.
 */
export class ConnectionPool {
  private readonly idle = new Map<string, OutboundConnection[]>();
  private count = 0;
  private sweeper: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly limits: PoolLimits,
    private readonly now: () => number,
  ) {}

  /** An idle, open connection to the origin, or null. */
  take(key: string): OutboundConnection | null {
    const list = this.idle.get(key);
    if (!list) return null;
    const now = this.now();
    for (let connection = list.pop(); connection; connection = list.pop()) {
      this.count -= 1;
      connection.onIdleClose = null;
      if (!connection.closed && (connection.idleUntil ?? 0) > now) {
        connection.idleUntil = null;
        if (list.length === 0) this.idle.delete(key);
        return connection;
      }
      connection.destroy();
    }
    this.idle.delete(key);
    return null;
  }

  /**
   * Keeps a connection whose last answer left it reusable, within the bounds; else closes it.
   * `serverIdleMs` is the server's own idle timeout when it said one (`Keep-Alive: timeout=`):
   * the connection is given up a second before it, not to be written to as the server closes.
   */
  put(connection: OutboundConnection, serverIdleMs: number | null = null): void {
    const key = connection.target.key;
    const list = this.idle.get(key) ?? [];
    const idleMs = Math.min(this.limits.idleMs, (serverIdleMs ?? Infinity) - SERVER_MARGIN_MS);
    const full = list.length >= this.limits.perOrigin || this.count >= this.limits.total;
    if (connection.closed || full || idleMs <= 0) {
      connection.destroy();
      return;
    }
    connection.park(this.now() + idleMs);
    connection.onIdleClose = (closed) => this.remove(closed);
    list.push(connection);
    this.idle.set(key, list);
    this.count += 1;
    this.scheduleSweep();
  }

  /** Idle connections now held (for tests and metrics). */
  get size(): number {
    return this.count;
  }

  private remove(connection: OutboundConnection): void {
    const list = this.idle.get(connection.target.key);
    const at = list?.indexOf(connection) ?? -1;
    if (!list || at < 0) return;
    list.splice(at, 1);
    this.count -= 1;
    if (list.length === 0) this.idle.delete(connection.target.key);
  }

  /** Closes connections idle past the limit; runs only while some are idle, never holds the process. */
  private scheduleSweep(): void {
    if (this.sweeper) return;
    this.sweeper = setTimeout(
      () => {
        this.sweeper = null;
        const now = this.now();
        for (const list of this.idle.values()) {
          for (const connection of list.filter((c) => (c.idleUntil ?? 0) <= now || c.closed)) {
            this.remove(connection);
            connection.destroy();
          }
        }
        if (this.count > 0) this.scheduleSweep();
      },
      Math.max(50, this.limits.idleMs / 2),
    );
    this.sweeper.unref();
  }
}
