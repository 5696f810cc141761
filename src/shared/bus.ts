import type { Logger } from "./logger.ts";

type Handler<E> = (payload: E) => void | Promise<void>;

/**
 * Typed in-process publish/subscribe between rooms, over an event map `Events` (name → payload).
 * The app's map is `DomainEvents` in src/events.ts: shared code knows no room's types.
 */
export interface Bus<Events extends object> {
  /** Subscribes; returns the function that unsubscribes. */
  on<K extends keyof Events>(name: K, handler: Handler<Events[K]>): () => void;
  /**
   * Calls every subscriber synchronously, in subscription order. A subscriber that throws or
   * rejects is logged and never disturbs the publisher or the other subscribers.
   */
  publish<K extends keyof Events>(name: K, payload: Events[K]): void;
}

/** Creates a bus; one per app, so two apps in one process never hear each other. */
export function createBus<Events extends object>(logger: Logger): Bus<Events> {
  const handlers = new Map<keyof Events, Set<Handler<never>>>();
  const report = (name: keyof Events, error: unknown) =>
    logger.error("bus subscriber failed", { event: String(name), error });
  return {
    on(name, handler) {
      const set = handlers.get(name) ?? new Set();
      handlers.set(name, set);
      set.add(handler as Handler<never>);
      return () => set.delete(handler as Handler<never>);
    },
    publish(name, payload) {
      for (const handler of handlers.get(name) ?? []) {
        try {
          const result = (handler as Handler<typeof payload>)(payload);
          if (result instanceof Promise) result.catch((error) => report(name, error));
        } catch (error) {
          report(name, error);
        }
      }
    },
  };
}
