/**
 * What the cluster needs of the shared database: one lock that only one session can hold, and a
 * channel every node hears. The PostgreSQL implementation is in cluster.postgres.ts.
 */
export interface ClusterStore {
  /** Takes the leader's lock unless another session holds it; null when it is held elsewhere. */
  tryLead(): Promise<LeaderSession | null>;
  /** Sends `messages` to every listening node, in order, all or none (one transaction). */
  broadcast(messages: readonly string[]): Promise<void>;
  /**
   * Hears the channel until the returned function is called. `onListening` runs once listening
   * starts and again after each reconnect: what was sent while disconnected is not heard.
   */
  listen(
    onMessage: (message: string) => void,
    onListening: () => void,
  ): Promise<() => Promise<void>>;
}

/** The session that holds the leader's lock; the lock lives exactly as long as the session. */
export interface LeaderSession {
  /** Settles when the session ended (connection dropped, server gone or `end()` called). */
  readonly ended: Promise<void>;
  /** Ends the session, which releases the lock. */
  end(): Promise<void>;
}
