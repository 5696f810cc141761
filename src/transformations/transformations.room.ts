import type { AuthPorts } from "../auth/auth.room.ts";
import { type RoomStorage, type SharedDeps, sqliteOf } from "../deps.ts";
import type { Room } from "../room.ts";
import type { SecretsPorts } from "../secrets/secrets.room.ts";
import type { TransformationOutcome } from "./transformations.model.ts";
import { createTransformationsPostgresStore } from "./transformations.postgres.ts";
import { transformationsRoutes } from "./transformations.routes.ts";
import { createTransformationRunner } from "./transformations.runner.ts";
import { runTransformation, type TransformationsDeps } from "./transformations.service.ts";
import { createTransformationsSqliteStore } from "./transformations.sqlite.ts";

export type TransformationsRoomDeps = Pick<SharedDeps, "clock" | "ids" | "sandbox"> & RoomStorage;

/** What the transformations room lends the routing room. */
export interface TransformationsPorts {
  /** Whether the organization has this transformation (a destination's transformation_id). */
  transformationExists(organizationId: string, transformationId: string): Promise<boolean>;
  /** One saved transformation run on one event request: `{request} | {filtered} | {error}`. */
  runTransformation(
    organizationId: string,
    transformationId: string,
    request: unknown,
  ): Promise<TransformationOutcome>;
}

/** Builds the transformations room: `/api/v1/transformations` and the run port. */
export function createTransformationsRoom(
  deps: TransformationsRoomDeps,
  ports: {
    guard: AuthPorts["guard"];
    secretEnvironment: SecretsPorts["secretEnvironment"];
    /** The destinations that run a transformation (the routing room, built later, lends it). */
    usersOf?(organizationId: string, transformationId: string): Promise<object[]>;
  },
): Room<TransformationsPorts> {
  const room: TransformationsDeps = {
    store: deps.postgres
      ? createTransformationsPostgresStore(deps.postgres)
      : createTransformationsSqliteStore(sqliteOf(deps)),
    runner: createTransformationRunner(deps.sandbox),
    secretEnvironment: ports.secretEnvironment,
    clock: deps.clock,
    ids: deps.ids,
    usersOf: ports.usersOf,
  };
  return {
    routes: transformationsRoutes(room, ports.guard),
    jobs: [],
    subscriptions: [],
    stop: () => {},
    ports: {
      transformationExists: async (organizationId, id) =>
        (await room.store.find(organizationId, id)) !== null,
      runTransformation: (organizationId, id, request) =>
        runTransformation(organizationId, id, request, room),
    },
  };
}
