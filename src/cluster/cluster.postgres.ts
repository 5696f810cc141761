import type { SQL } from "bun";
import type { ClusterStore, LeaderSession } from "./cluster.store.ts";

/** The leader's advisory lock, as pg_locks shows it: classid "WEIR" in ASCII, objid 1. */
export const LEADER_LOCK = { classId: 0x57454952, objId: 1 } as const;
/** How often the leader's busy backend checks that the leader is still connected. */
const CLIENT_CHECK_MS = 1000;
/** The one channel every node listens on. */
export const CLUSTER_CHANNEL = "weir_cluster";

/**
 * The cluster over PostgreSQL: a session-level advisory lock on a reserved connection makes a
 * leader (PostgreSQL releases it when that session ends, so a killed node hands over by itself),
 * and LISTEN/NOTIFY on one channel carries events.
 */
export function createClusterPostgresStore(sql: SQL): ClusterStore {
  return {
    async tryLead(): Promise<LeaderSession | null> {
      const session = await sql.reserve();
      let held: boolean;
      try {
        const [row] = await session`
          SELECT pg_try_advisory_lock(${LEADER_LOCK.classId}::int, ${LEADER_LOCK.objId}::int) AS held`;
        held = row?.held === true;
      } catch (error) {
        await session.close();
        throw error;
      }
      if (!held) {
        // Another session leads: the connection goes back to the pool for the next try.
        await session.release();
        return null;
      }
      // A statement that never finishes on its own fails the moment the session ends (dropped
      // connection, terminated backend, server restart), which is when the lock is gone: the
      // leader hears of it at once instead of at its next check. A busy backend does not notice
      // its client is gone, so it checks every second (PostgreSQL 14+): a killed leader's lock
      // is then released within that second. No statement timeout may end the wait.
      try {
        await session.unsafe(
          `SET client_connection_check_interval = '${CLIENT_CHECK_MS}ms'; SET statement_timeout = 0`,
        );
      } catch (error) {
        await session.close();
        throw error;
      }
      const ended = session`SELECT pg_sleep_for('100 years')`.then(
        () => {},
        () => {},
      );
      void ended.then(() => session.close());
      return { ended, end: () => session.close() };
    },
    async broadcast(messages) {
      if (messages.length === 1) return sql.notify(CLUSTER_CHANNEL, messages[0]);
      // NOTIFY inside a transaction is delivered on commit, together and in order.
      await sql.begin(async (tx) => {
        for (const message of messages) await tx.notify(CLUSTER_CHANNEL, message);
      });
    },
    async listen(onMessage, onListening) {
      const subscription = await sql.listen(CLUSTER_CHANNEL, onMessage, onListening);
      return () => subscription.unlisten();
    },
  };
}
