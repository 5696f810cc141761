import type { Server } from "bun";
import { Elysia, t } from "elysia";
import { isLoopback } from "../http/http.client-ip.ts";
import { documentedAnswer, ErrorBody, PUBLIC, ValidationErrorBody } from "../http/http.openapi.ts";
import {
  clearedSessionCookie,
  reachedOverHttps,
  sessionCookie,
  UI_REQUEST_HEADER,
} from "../http/http.ui-session.ts";
import type { KeyedLimiter } from "../shared/token-bucket.ts";
import { login, publicMembership, publicUser, registerAccount } from "./accounts.service.ts";
import { authErrors } from "./auth.errors.ts";
import { authGuard } from "./auth.guard.ts";
import type { Role } from "./auth.model.ts";
import type { AuthParts } from "./auth.room.ts";

const Credentials = t.Object(
  { email: t.String(), password: t.String() },
  { examples: [{ email: "ops@example.com", password: "a-long-password" }] },
);
const tags = ["accounts"];

/** Registration, login, first-run state and `/me` (decisions.md §2). */
export function authRoutes(room: AuthParts) {
  return new Elysia()
    .get(
      "/api/v1/auth/setup",
      async () => ({
        needs_setup: (await room.store.countUsers()) === 0,
        registration: room.accounts.registration,
        anonymous_endpoints: room.anonymousEndpoints,
      }),
      {
        detail: {
          tags,
          summary:
            "Whether first-run setup is needed, registration is open and anonymous endpoints are on",
          ...PUBLIC,
          ...documentedAnswer(200, "Setup state", {
            needs_setup: true,
            registration: "closed",
            anonymous_endpoints: "on",
          }),
        },
      },
    )
    .post(
      "/api/v1/auth/register",
      async ({ body, set, request, server }) => {
        const address = limitPerClient(room.registrationLimiter, room, request, server, set);
        const remoteFirstRun = (await room.store.countUsers()) === 0 && !isLoopback(address);
        if (remoteFirstRun) warnOfRemoteFirstRun(room, address, "requested");
        const created = await registerAccount(body, room.accounts);
        if (remoteFirstRun) warnOfRemoteFirstRun(room, address, "completed");
        set.status = 201;
        rememberUiSession(room, request, set, created.token);
        return created;
      },
      {
        body: t.Object(
          {
            email: t.String(),
            password: t.String({ description: "At least 8 characters." }),
            organization_name: t.String(),
          },
          {
            examples: [
              { email: "ops@example.com", password: "a-long-password", organization_name: "Ops" },
            ],
          },
        ),
        response: { 403: ErrorBody, 409: ErrorBody, 422: ValidationErrorBody, 429: ErrorBody },
        detail: {
          tags,
          summary: "Register: the first user, or anyone when WEIR_REGISTRATION=open",
          description:
            "The first organization gets the `enterprise` plan; later ones `WEIR_DEFAULT_PLAN`. 403 `registration_closed` once a user exists and registration is not open.",
          ...PUBLIC,
          ...documentedAnswer(201, "The account, its organization and a login token", {
            token: "eyJhbGciOiJIUzI1NiJ9…",
            user: { id: "0196a4c2-…", email: "ops@example.com" },
            organization: { id: "0196a4c2-…", name: "Ops", role: "owner", plan: "enterprise" },
          }),
        },
      },
    )
    .post(
      "/api/v1/auth/login",
      async ({ body, set, request, server }) => {
        const address = limitPerClient(room.loginLimiter, room, request, server, set);
        const answer = await login(body, room.accounts).catch((error: unknown) => {
          // Who tried which account from where, to debug with and to spot guessing; never the password.
          room.logger.warn("login failed", { email: body.email, address });
          throw error;
        });
        rememberUiSession(room, request, set, answer.token);
        return answer;
      },
      {
        body: Credentials,
        response: { 401: ErrorBody, 422: ValidationErrorBody, 429: ErrorBody },
        detail: {
          tags,
          summary: "Log in: a JWT (HS256, WEIR_JWT_TTL) and the user's organizations",
          description:
            'Wrong credentials: 401 `{error: "Invalid email or password"}`. Rate limited per client address (429 with Retry-After).',
          ...PUBLIC,
          ...documentedAnswer(200, "A login token and the user's organizations", {
            token: "eyJhbGciOiJIUzI1NiJ9…",
            expires_at: "2026-01-03T03:04:05.000Z",
            user: { id: "0196a4c2-…", email: "ops@example.com" },
            organizations: [{ id: "0196a4c2-…", name: "Ops", role: "owner", plan: "enterprise" }],
          }),
        },
      },
    )
    .post(
      "/api/v1/auth/logout",
      ({ request, set }) => {
        set.headers["set-cookie"] = clearedSessionCookie(
          reachedOverHttps(request.url, request.headers),
        );
        set.status = 204;
      },
      {
        detail: {
          tags,
          summary:
            "Log out of the web UI: clears its session cookie (a login token stays valid until it expires)",
          security: [],
          ...documentedAnswer(204, "The session cookie is cleared"),
        },
      },
    )
    .use(authGuard(room.auth, room.clientIp))
    .get(
      "/api/v1/me",
      async ({ principal }) => {
        const user = principal.userId ? await room.store.userById(principal.userId) : undefined;
        const organizations = user
          ? (await room.store.membershipsOf(user.id)).map((m) =>
              publicMembership(m, room.accounts.plans),
            )
          : [await apiKeyOrganization(room, principal.organizationId, principal.role)];
        return {
          user: user ? publicUser(user) : null,
          organizations,
          organization: organizations.find((o) => o.id === principal.organizationId) ?? null,
          auth_method: principal.authMethod,
        };
      },
      {
        response: { 401: ErrorBody, 404: ErrorBody },
        detail: {
          tags,
          summary: "Who is calling: the user (null for an API key), organizations, auth method",
          ...documentedAnswer(200, "The caller", {
            user: { id: "0196a4c2-…", email: "ops@example.com" },
            organizations: [{ id: "0196a4c2-…", name: "Ops", role: "owner", plan: "enterprise" }],
            organization: { id: "0196a4c2-…", name: "Ops", role: "owner", plan: "enterprise" },
            auth_method: "jwt",
          }),
        },
      },
    );
}

/**
 * A login from the web UI (it sends `X-Weir-UI`) also sets the httpOnly session cookie, so the
 * login survives new tabs and restarts; API clients get only the token in the body.
 */
export function rememberUiSession(
  room: AuthParts,
  request: Request,
  set: { headers: Record<string, string | number> },
  token: string,
) {
  if (request.headers.get(UI_REQUEST_HEADER) === null) return;
  const secure = reachedOverHttps(request.url, request.headers);
  set.headers["set-cookie"] = sessionCookie(token, room.sessionTtlSeconds, secure);
}

/** The key's organization, with the role the key acts with. */
async function apiKeyOrganization(room: AuthParts, organizationId: string, role: Role) {
  const org = await room.store.organizationById(organizationId);
  const plan = org?.plan ?? "free";
  return {
    id: organizationId,
    name: org?.name ?? "",
    role,
    plan,
    limits: room.accounts.plans[plan],
  };
}

/** Takes one attempt from the client's bucket; 429 with `Retry-After` when it is empty. */
export function limitPerClient(
  limiter: KeyedLimiter,
  room: AuthParts,
  request: Request,
  server: Server<unknown> | null,
  set: { headers: Record<string, string | number> },
): string {
  const peer = server?.requestIP(request)?.address ?? null;
  const address = room.clientIp(peer, request.headers.get("x-forwarded-for")) ?? "unknown";
  const wait = limiter.take(address);
  if (wait > 0) {
    set.headers["retry-after"] = String(wait);
    throw authErrors.rateLimited(wait);
  }
  return address;
}

/**
 * First-run setup makes its caller the owner of the whole instance. From another machine that is
 * either the operator on their LAN or someone who found a fresh server first: say so loudly.
 */
function warnOfRemoteFirstRun(room: AuthParts, address: string, stage: "requested" | "completed") {
  const what =
    stage === "requested"
      ? `first-run setup requested from ${address}, not from this machine`
      : `FIRST-RUN SETUP COMPLETED FROM ${address}: that client now owns this Weir instance; if it was not you, stop the server and remove the data dir`;
  room.logger.warn(what, { address, stage });
}
