/** A destination that holds every request until released: in-flight deliveries stay leased. */
export interface HeldSink {
  url: string;
  /** Requests waiting for their answer now. */
  held(): number;
  /** Answers every request held now. */
  release(): void;
  stop(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 that answers "ok" only when told to. */
export function startHeldSink(): HeldSink {
  const waiting: (() => void)[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      await request.arrayBuffer();
      await new Promise<void>((resolve) => waiting.push(resolve));
      return new Response("ok");
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    held: () => waiting.length,
    release: () => {
      for (const resolve of waiting.splice(0)) resolve();
    },
    stop: async () => {
      for (const resolve of waiting.splice(0)) resolve();
      await server.stop(true);
    },
  };
}
