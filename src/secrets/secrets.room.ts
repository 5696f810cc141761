import type { AuthPorts } from "../auth/auth.room.ts";
import { type RoomStorage, type SharedDeps, sqliteOf } from "../deps.ts";
import type { Room } from "../room.ts";
import { createSealer } from "../shared/sealed.ts";
import { createSecretsPostgresStore } from "./secrets.postgres.ts";
import { secretsRoutes } from "./secrets.routes.ts";
import {
  type SecretLookup,
  type SecretsDeps,
  secretEnvironment,
  secretLookup,
  secretResolver,
} from "./secrets.service.ts";
import { createSecretsSqliteStore, type SecretsSqliteStore } from "./secrets.sqlite.ts";
import type { SecretsStore } from "./secrets.store.ts";

export type SecretsRoomDeps = Pick<SharedDeps, "clock" | "ids" | "secretKey"> & RoomStorage;

/** What the secrets room lends: the organization's secrets, opened, for send time only. */
export interface SecretsPorts {
  /** A lookup of the organization's secrets by name (for `{{NAME}}` at send time). */
  resolveSecrets(organizationId: string): Promise<SecretLookup>;
  /** Every secret of the organization by name: a transformation's `context.env`. */
  secretEnvironment(organizationId: string): Promise<Record<string, string>>;
  /**
   * The same lookup without waiting, its rows read on first use, for the paths that answer
   * synchronously (signature checks at capture and ingest) or must not add a read per item
   * (a delivery's preparation). Only over SQLite: absent when the room stores in PostgreSQL.
   */
  resolveSecretsNow?(organizationId: string): SecretLookup;
}

/** Builds the secrets room: `/api/v1/secrets` and the lookups other rooms are lent. */
export function createSecretsRoom(
  deps: SecretsRoomDeps,
  ports: {
    guard: AuthPorts["guard"];
    /** Whatever says `{{name}}` (rooms built later lend it): a secret in use is not deleted. */
    usersOf?(organizationId: string, name: string): Promise<object[]>;
  },
): Room<SecretsPorts> {
  const { store, sqlite } = storesOf(deps);
  const secrets: SecretsDeps = {
    store,
    sealer: createSealer(deps.secretKey, "secrets"),
    clock: deps.clock,
    ids: deps.ids,
    usersOf: ports.usersOf,
  };
  const lendNow = sqlite
    ? {
        resolveSecretsNow: (organizationId: string) =>
          secretLookup(organizationId, () => sqlite.listNow(organizationId), secrets.sealer),
      }
    : {};
  return {
    routes: secretsRoutes(secrets, ports.guard),
    jobs: [],
    subscriptions: [],
    stop: () => {},
    ports: {
      resolveSecrets: (organizationId) => secretResolver(organizationId, secrets),
      secretEnvironment: (organizationId) => secretEnvironment(organizationId, secrets),
      ...lendNow,
    },
  };
}

/** The PostgreSQL store when the room is given one, else SQLite's (which also reads at once). */
function storesOf(deps: SecretsRoomDeps): {
  store: SecretsStore;
  sqlite: SecretsSqliteStore | null;
} {
  if (deps.postgres) return { store: createSecretsPostgresStore(deps.postgres), sqlite: null };
  const sqlite = createSecretsSqliteStore(sqliteOf(deps));
  return { store: sqlite, sqlite };
}
