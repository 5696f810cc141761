import type { DomainEvents } from "./events.ts";
import type { Logger } from "./logger.ts";

type Handler<E> = (payload: E) => void | Promise<void>;

/** Typed in-process publish/subscribe between rooms. */
export interface Bus {
  /** Subscribes; returns the function that unsubscribes. */
  on<K extends keyof DomainEvents>(name: K, handler: Handler<DomainEvents[K]>): () => void;
  /**
   * Calls every subscriber synchronously, in subscription order. A subscriber that throws or
   * rejects is logged and never disturbs the publisher or the other subscribers.
   */
  publish<K extends keyof DomainEvents>(name: K, payload: DomainEvents[K]): void;
}

/** Creates a bus; one per app, so two apps in one process never hear each other. */
export function createBus(logger: Logger): Bus {
  const handlers = new Map<keyof DomainEvents, Set<Handler<never>>>();
  const report = (name: string, error: unknown) =>
    logger.error("bus subscriber failed", { event: name, error });
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
