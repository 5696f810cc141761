/**
 * Domain events carried by the in-process bus, by name. Rooms talk through these so that, for
 * example, capture never imports realtime. Each room adds the events it publishes here.
 */
export interface DomainEvents {
  "server.started": { baseUrl: string; port: number };
  "server.stopping": Record<string, never>;
}
