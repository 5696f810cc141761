import type { ServerWebSocket } from "bun";
import { Elysia } from "elysia";
import type { Principal } from "../auth/auth.model.ts";
import { uiSocketToken } from "../http/http.ui-session.ts";
import { AppError, badRequest } from "../shared/errors.ts";
import type { RealtimeHub } from "./realtime.channel.service.ts";
import type { Session, SocketLink } from "./realtime.fanout.service.ts";
import { type Serializer, serializerFor } from "./realtime.protocol.model.ts";

/** How the socket authenticates its `token` (the auth room's service has both). */
export interface SocketAuth {
  authenticateToken(token: string): Promise<Principal | null>;
  forOrganization(principal: Principal, organizationId: string): Promise<Principal | null>;
  /** What the token of a live socket still grants (see SocketRights). */
  recheckToken(token: string, organizationId: string): Promise<Principal | string>;
}

/** The subprotocol the phoenix client offers with `authToken`, and the prefix of the token entry. */
const PHOENIX_PROTOCOL = "phoenix";
const TOKEN_PROTOCOL_PREFIX = "base64url.bearer.phx.";

/** Refusing the upgrade (decisions.md §7): the same words as the REST API's 401, with 403. */
const badToken = () => new AppError("Invalid or missing API key", 403);

/**
 * `GET /socket/websocket` (what `new Socket("/socket")` of the phoenix client dials). The upgrade
 * is authenticated first: a bad token, or an `organization_id` the caller is not in, is a plain
 * 403 response and no socket. The token comes from the `token` parameter (interface.md,
 * Authentication item 10) or, for clients that keep it out of URLs and logs, from the phoenix
 * client's `authToken` subprotocol.
 */
export function realtimeRoutes(input: { hub: RealtimeHub; auth: SocketAuth }) {
  const { hub, auth } = input;
  const accepted = new WeakMap<
    Request,
    { principal: Principal; serializer: Serializer; token: string }
  >();
  const sessions = new WeakMap<object, Session>();

  return new Elysia({ name: "realtime-routes" }).ws("/socket/websocket", {
    // OpenAPI has no WebSocket operation; the protocol is documented in docs/realtime.md.
    detail: { hide: true },
    async upgrade({ request, query, set }) {
      const serializer = serializerFor(query.vsn);
      if (!serializer) throw badRequest("unsupported_vsn");
      const offered = protocolsOf(request);
      // The web UI's socket carries no token: its session cookie, same-origin only, stands in.
      const token = query.token || tokenFromProtocols(offered) || uiSocketToken(request.headers);
      let principal = token ? await auth.authenticateToken(token) : null;
      if (principal && query.organization_id) {
        principal = await auth.forOrganization(principal, query.organization_id);
      }
      if (!principal || !token) throw badToken();
      // A client that offered subprotocols fails the handshake unless one is chosen.
      if (offered.includes(PHOENIX_PROTOCOL))
        set.headers["sec-websocket-protocol"] = PHOENIX_PROTOCOL;
      accepted.set(request, { principal, serializer, token });
    },
    open(ws) {
      const upgrade = accepted.get(ws.data.request);
      if (!upgrade) return ws.close(1011, "unauthenticated");
      // Elysia's typing of the raw socket predates getBufferedAmount; Bun's own type has it.
      const link: SocketLink = ws.raw as unknown as ServerWebSocket<unknown>;
      sessions.set(ws.raw, hub.open(link, upgrade.principal, upgrade.serializer, upgrade.token));
    },
    message(ws, message) {
      const session = sessions.get(ws.raw);
      if (!session) return;
      if (message instanceof Uint8Array || message instanceof ArrayBuffer) {
        hub.receiveBinary(session);
      } else {
        hub.receive(session, message);
      }
    },
    drain(ws) {
      const session = sessions.get(ws.raw);
      if (session) hub.drained(session);
    },
    close(ws) {
      const session = sessions.get(ws.raw);
      if (session) hub.closed(session);
      sessions.delete(ws.raw);
    },
  });
}

function protocolsOf(request: Request): string[] {
  const header = request.headers.get("sec-websocket-protocol");
  return header ? header.split(",").map((item) => item.trim()) : [];
}

/** The token the phoenix client packs as `base64url.bearer.phx.<base64 of the token>`. */
function tokenFromProtocols(protocols: string[]): string | null {
  const entry = protocols.find((item) => item.startsWith(TOKEN_PROTOCOL_PREFIX));
  if (!entry) return null;
  return Buffer.from(entry.slice(TOKEN_PROTOCOL_PREFIX.length), "base64").toString("utf8");
}
