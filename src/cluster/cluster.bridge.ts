import type { Bus } from "../shared/bus.ts";
import type { Logger } from "../shared/logger.ts";
import { createDecoder, createEncoder } from "./cluster.codec.ts";
import type { ClusterStore } from "./cluster.store.ts";

export interface BusBridgeDeps<Events extends object> {
  store: Pick<ClusterStore, "broadcast" | "listen">;
  bus: Bus<Events>;
  /** The events other nodes must hear; every other event stays on its node. */
  events: readonly (keyof Events & string)[];
  nodeId: string;
  logger: Logger;
}

/**
 * Carries the listed bus events to the other nodes and publishes theirs here. What arrives from
 * another node is published on this bus only: the bridge does not send it on (no node hears an
 * event twice) and the origin tag keeps a node from hearing its own.
 *
 * Sending happens after the publish that triggered it, in publish order, batched: what is
 * published while a send is on its way goes in the next transaction. An event whose send fails
 * (database unreachable) is logged and lost; so is what a node publishes while its listening
 * connection is being re-established (other nodes' events of that moment are not heard).
 */
export function createBusBridge<Events extends object>(deps: BusBridgeDeps<Events>) {
  const logger = deps.logger.child({ scope: "cluster" });
  const bridged = new Set<string>(deps.events);
  const encode = createEncoder(deps.nodeId);
  const decoder = createDecoder(deps.nodeId);
  const outbox: string[] = [];
  let sending: Promise<void> | null = null;
  let relaying = false;
  const unsubscribes: (() => void)[] = [];
  let unlisten: (() => Promise<void>) | null = null;
  let listenedBefore = false;

  const sendOutbox = async () => {
    while (outbox.length > 0) {
      const batch = outbox.splice(0);
      try {
        await deps.store.broadcast(batch);
      } catch (error) {
        logger.error("cluster events not sent", { notifications: batch.length, error });
      }
    }
    sending = null;
  };
  const send = (event: string, payload: unknown) => {
    // The bridge's own publish of a remote event: it came from the cluster, it does not go back.
    if (relaying) return;
    try {
      outbox.push(...encode(event, payload));
    } catch (error) {
      logger.error("cluster event not encodable", { event, error });
      return;
    }
    sending ??= sendOutbox();
  };
  const receive = (text: string) => {
    let heard: ReturnType<typeof decoder.accept>;
    try {
      heard = decoder.accept(text);
    } catch (error) {
      logger.warn("unreadable cluster notification", { error });
      return;
    }
    if (!heard || !bridged.has(heard.event)) return;
    relaying = true;
    try {
      deps.bus.publish(heard.event as keyof Events, heard.payload as Events[keyof Events]);
    } finally {
      relaying = false;
    }
  };
  const listening = () => {
    // A reconnect: parts of a message cut off by the drop never complete.
    if (listenedBefore) {
      decoder.reset();
      logger.warn("listening to the cluster again; events sent meanwhile were missed", {});
    }
    listenedBefore = true;
  };

  return {
    /** Listens first, then sends: resolves once this node hears the others. */
    async start(): Promise<void> {
      unlisten = await deps.store.listen(receive, listening);
      for (const event of deps.events) {
        unsubscribes.push(deps.bus.on(event, (payload) => send(event, payload)));
      }
    },
    /** Stops sending (what is on its way still goes), then stops listening. */
    async stop(): Promise<void> {
      for (const unsubscribe of unsubscribes.splice(0)) unsubscribe();
      await sending;
      await unlisten?.();
      unlisten = null;
    },
  };
}
