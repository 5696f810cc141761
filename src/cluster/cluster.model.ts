/**
 * This node's place among the Weir nodes sharing one database. Scheduled jobs that must run
 * once cluster-wide ask `isLeader()` before each run; the bus bridge carries events between
 * nodes. With SQLite there is one node, which always leads.
 */
export interface Cluster {
  /** Tags what this node sends to the others, so it never hears itself. */
  readonly nodeId: string;
  isLeader(): boolean;
  /** Called with `true` when this node takes the lead, `false` when it steps down. */
  onLeadershipChange(listener: (leader: boolean) => void): () => void;
  /** Starts competing for the lead and bridging events; a single node has nothing to start. */
  start(): Promise<void>;
  /** Gives up the lead (the others take over at their next try) and stops bridging. */
  stop(): Promise<void>;
}

/** A process alone on its database (SQLite): it leads from the start and never changes. */
export function createSingleNodeCluster(nodeId = "single-node"): Cluster {
  return {
    nodeId,
    isLeader: () => true,
    onLeadershipChange: () => () => {},
    start: async () => {},
    stop: async () => {},
  };
}

/** Keeps the listeners of leadership changes; one that throws never stops the others. */
export function createLeadershipListeners(report: (error: unknown) => void) {
  const listeners = new Set<(leader: boolean) => void>();
  return {
    add(listener: (leader: boolean) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    tell(leader: boolean): void {
      for (const listener of [...listeners]) {
        try {
          listener(leader);
        } catch (error) {
          report(error);
        }
      }
    },
  };
}
