import { Elysia } from "elysia";
import type { AuthPorts } from "../auth/auth.room.ts";
import type { AppDeps } from "../deps.ts";
import type { Room } from "../room.ts";
import type { StatusPagesReads } from "./status-pages.ports.ts";
import { createStatusPagesRepo } from "./status-pages.repo.ts";
import { statusPagesRoutes } from "./status-pages.routes.ts";
import type { StatusPagesDeps } from "./status-pages.service.ts";

export type StatusPagesRoomDeps = Pick<AppDeps, "db" | "clock" | "ids" | "publicBaseUrl">;

export interface StatusPagesRoomPorts extends StatusPagesReads {
  guard: AuthPorts["guard"];
}

/**
 * Builds the status pages room (decisions.md §9, §15): a read model over the monitors' rollups,
 * incidents, maintenance windows and delivery health, lent through ports. It owns no timer.
 */
export function createStatusPagesRoom(
  deps: StatusPagesRoomDeps,
  ports: StatusPagesRoomPorts,
): Room {
  const { guard, ...reads } = ports;
  const pages: StatusPagesDeps = {
    repo: createStatusPagesRepo(deps.db),
    reads,
    clock: deps.clock,
    ids: deps.ids,
    tx: (fn) => deps.db.tx(fn),
    pageChanged: () => {},
  };
  const routes = new Elysia().use(
    statusPagesRoutes({ guard, pages, publicBaseUrl: deps.publicBaseUrl }),
  );
  return { routes, jobs: [], subscriptions: [], stop: () => {}, ports: {} };
}
