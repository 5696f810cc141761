import { Elysia } from "elysia";
import type { ClientIpResolver } from "../http/http.client-ip.ts";
import { uiSessionToken } from "../http/http.ui-session.ts";
import { notFound } from "../shared/errors.ts";
import { authErrors } from "./auth.errors.ts";
import { checkPermission, type Permission, type Principal } from "./auth.model.ts";
import type { AuthService } from "./auth.service.ts";

/**
 * The one auth guard of every management route. Routes declared after `.use(authGuard(auth))`
 * receive `principal`; anything else is 401 with the contract's message. It runs as `derive`
 * (before body validation), so a caller without credentials learns nothing about the body a
 * route expects. Not named, so Elysia never de-duplicates it away from a second room using it.
 */
export function authGuard(auth: AuthService, clientIp: ClientIpResolver) {
  // Named: the API reference finds the routes behind this guard by it (their `security`).
  return new Elysia().derive(
    { as: "scoped" },
    async function weirAuthGuard({ request, server, set }) {
      const headers = request.headers;
      const peer = server?.requestIP(request)?.address ?? null;
      const result = await auth.authenticate({
        authorization: headers.get("authorization"),
        apiKey: headers.get("x-api-key"),
        organizationId: headers.get("x-organization-id"),
        sessionToken: uiSessionToken(headers),
        origin: {
          ip: clientIp(peer, headers.get("x-forwarded-for")),
          userAgent: headers.get("user-agent"),
        },
      });
      if (result === "not_member") throw notFound();
      if (result === "plan_without_api_keys") throw authErrors.planWithoutApiKeys();
      if (!result) throw authErrors.unauthorized();
      if ("rateLimited" in result) {
        set.headers["retry-after"] = String(result.rateLimited);
        throw authErrors.rateLimited(result.rateLimited);
      }
      return { principal: result };
    },
  );
}

/** The name of the guard's derive function, as route hooks carry it. */
export const AUTH_GUARD_NAME = "weirAuthGuard";

/** The one role check of the HTTP layer: 403 `forbidden`, or `jwt_required` for key management. */
export function requirePermission(principal: Principal, permission: Permission): void {
  const verdict = checkPermission(principal, permission);
  if (verdict === "jwt_required") throw authErrors.jwtRequired();
  if (verdict === "forbidden") throw authErrors.forbidden();
}

/** The caller acting in the organization named by a path; another organization is a 404. */
export async function principalForPath(
  auth: AuthService,
  principal: Principal,
  orgId: string,
): Promise<Principal> {
  const scoped = await auth.forOrganization(principal, orgId);
  if (!scoped) throw notFound();
  return scoped;
}
