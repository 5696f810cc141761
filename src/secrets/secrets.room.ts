import type { AuthPorts } from "../auth/auth.room.ts";
import type { AppDeps } from "../deps.ts";
import type { Room } from "../room.ts";
import { createSealer } from "../shared/sealed.ts";
import { createSecretsRepo } from "./secrets.repo.ts";
import { secretsRoutes } from "./secrets.routes.ts";
import { type SecretsDeps, secretEnvironment, secretResolver } from "./secrets.service.ts";

export type SecretsRoomDeps = Pick<AppDeps, "db" | "clock" | "ids" | "secretKey">;

/** What the secrets room lends: the organization's secrets, opened, for send time only. */
export interface SecretsPorts {
  /** A lookup of the organization's secrets by name (for `{{NAME}}` at send time). */
  resolveSecrets(organizationId: string): (name: string) => string | undefined;
  /** Every secret of the organization by name: a transformation's `context.env`. */
  secretEnvironment(organizationId: string): Record<string, string>;
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
  const secrets: SecretsDeps = {
    repo: createSecretsRepo(deps.db),
    sealer: createSealer(deps.secretKey, "secrets"),
    clock: deps.clock,
    ids: deps.ids,
    usersOf: ports.usersOf,
  };
  return {
    routes: secretsRoutes(secrets, ports.guard),
    jobs: [],
    subscriptions: [],
    stop: () => {},
    ports: {
      resolveSecrets: (organizationId) => secretResolver(organizationId, secrets),
      secretEnvironment: (organizationId) => secretEnvironment(organizationId, secrets),
    },
  };
}
