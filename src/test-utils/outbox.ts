import { createDeliveryRoom } from "../delivery/delivery.room.ts";
import { closeDeps, createDeps } from "../deps.ts";
import { startRooms } from "../room.ts";
import type { Config } from "../shared/config.table.ts";
import { loadConfig } from "../shared/config.ts";
import { createLogger } from "../shared/logger.ts";
import { createFakeClock } from "./fake-clock.ts";
import { createManualScheduler } from "./manual-scheduler.ts";
import { makeTempDir } from "./temp-dir.ts";

/**
 * The delivery room alone on a fresh data dir, on a fake clock and a manual scheduler: its
 * "event" deliveries post `{}` to `urlOf(subjectId)`. `stop` stops it and removes the dir.
 */
export async function startOutboxAlone(options: {
  dirPrefix: string;
  config: Partial<Config>;
  urlOf: (subjectId: string) => string;
}) {
  const dir = makeTempDir(options.dirPrefix);
  const clock = createFakeClock();
  const scheduler = createManualScheduler();
  const base = loadConfig({ env: {}, flags: { data_dir: dir.path } }).config;
  const deps = await createDeps(
    { ...base, durability: "normal", ...options.config },
    { clock, scheduler, logger: createLogger({ level: "error", write: () => {} }) },
  );
  const room = createDeliveryRoom(deps);
  room.ports.registerKind("event", {
    prepare: async (delivery) => ({
      send: {
        url: options.urlOf(delivery.subjectId),
        method: "POST",
        headers: [],
        body: "{}",
        signingSecrets: [],
      },
    }),
  });
  const stopRooms = startRooms([room], deps);
  deps.bus.publish("server.started", { baseUrl: "", port: 0 });
  /** Deliveries leased to a sender right now. */
  const leased = () =>
    deps.db.sqlite
      .query<{ n: number }, []>(
        "SELECT count(*) AS n FROM deliveries WHERE locked_until IS NOT NULL",
      )
      .get()?.n ?? 0;
  const stop = async () => {
    await stopRooms();
    closeDeps(deps);
    dir.remove();
  };
  return { deps, ports: room.ports, clock, scheduler, leased, stop };
}
