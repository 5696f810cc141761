import { parseIp } from "./outbound.address.ts";
import type { AbandonedConnects } from "./outbound.connecting.ts";
import { type ConnectTarget, OutboundConnection } from "./outbound.connection.ts";
import { BlockedAddressError } from "./outbound.model.ts";
import type { OutboundPolicy } from "./outbound.policy.ts";
import { InvalidRequestError } from "./outbound.request.ts";

/** A resolver: every address a name has (tests pass one that answers what they need). */
export type Resolve = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** Where a URL connects: its origin's pool key, host name, port and TLS settings. */
export type Target = ConnectTarget & { hostname: string };

/** Opens a checked connection; `onOpening` learns of it before it is open, to close it on a deadline. */
export type Connector = (
  target: Target,
  onOpening: (connection: OutboundConnection) => void,
) => Promise<OutboundConnection>;

/**
 * Opens a connection to a URL's host: a literal address as it is (the URL check judged it), a
 * name resolved and refused when ANY of its addresses is denied, so a name that flips between a
 * public and a denied address (DNS rebinding) cannot slip through; then the connection goes to
 * the checked address (the next address when one refuses), never to a second lookup's answer.
 */
export function createConnector(
  policy: OutboundPolicy,
  resolve: Resolve,
  abandoned: AbandonedConnects,
  ca?: string,
): Connector {
  return async (target, onOpening) => {
    const addresses = parseIp(target.hostname) ? [target.hostname] : await resolveChecked();
    let lastError: unknown;
    for (const address of addresses) {
      const tls = target.tls && { ...target.tls, ...(ca && { ca }) };
      abandoned.admit(target.key);
      try {
        return await openCounted(new OutboundConnection({ ...target, address, tls }));
      } catch (error) {
        if (!UNREACHABLE.has((error as { code?: string }).code ?? "")) throw error;
        lastError = error;
      }
    }
    throw lastError;

    /** Opens it; a connect its send gave up on is counted until it settles (AbandonedConnects). */
    async function openCounted(connection: OutboundConnection): Promise<OutboundConnection> {
      let counted = false;
      connection.onConnectAbandoned = () => {
        counted = true;
        abandoned.abandon(target.key);
      };
      onOpening(connection);
      try {
        return await connection.open();
      } finally {
        connection.onConnectAbandoned = null;
        if (counted) abandoned.settle(target.key);
      }
    }

    async function resolveChecked(): Promise<string[]> {
      const found = await resolve(target.hostname);
      if (found.length === 0) {
        throw Object.assign(new Error(`no address for ${target.hostname}`), { code: "ENOTFOUND" });
      }
      for (const { address } of found) {
        const verdict = policy.checkAddress(address);
        if (!verdict.allowed) {
          throw new BlockedAddressError(`${target.hostname} resolves to ${verdict.reason}`);
        }
      }
      return found.map(({ address }) => address);
    }
  };
}

/** Connect errors after which the name's next address is tried. */
const UNREACHABLE = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL"]);

export function targetOf(url: URL): Target {
  const secure = url.protocol === "https:";
  if (!secure && url.protocol !== "http:") {
    throw new InvalidRequestError(`unsupported scheme ${url.protocol}`);
  }
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  const port = Number(url.port) || (secure ? 443 : 80);
  return {
    key: `${url.protocol}//${url.host}`,
    hostname,
    address: hostname,
    port,
    tls: secure ? { serverName: hostname } : null,
  };
}
