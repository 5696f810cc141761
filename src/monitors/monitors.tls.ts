import { lookup } from "node:dns/promises";
import { connect } from "node:tls";
import type { PolicyVerdict } from "../http/outbound/outbound.policy.ts";

const DAY_MS = 86_400_000;

export interface CertificateDeps {
  checkAddress(address: string): PolicyVerdict;
  /** The clock's reading (epoch ms): days remaining are counted from it. */
  clockNow(): number;
}

/**
 * Whole days until the certificate an https URL serves expires (negative once expired), or
 * null when it cannot be read. The HTTP check verifies the chain; this read only looks at the
 * expiry, so it accepts what the check would refuse (an expired certificate still has a date).
 * The address is resolved and judged by the outbound policy first, as every connection is.
 */
export async function certificateDaysRemaining(
  url: string,
  timeoutMs: number,
  deps: CertificateDeps,
): Promise<number | null> {
  const target = new URL(url);
  if (target.protocol !== "https:") return null;
  const host = target.hostname.replace(/^\[|\]$/g, "");
  try {
    const { address } = await lookup(host);
    if (!deps.checkAddress(address).allowed) return null;
    const validTo = await readExpiry(address, Number(target.port || 443), host, timeoutMs);
    return validTo === null ? null : Math.floor((validTo - deps.clockNow()) / DAY_MS);
  } catch {
    return null;
  }
}

function readExpiry(address: string, port: number, servername: string, timeoutMs: number) {
  return new Promise<number | null>((resolve) => {
    const isName = !/^[\d.]+$/.test(servername) && !servername.includes(":");
    const socket = connect({
      host: address,
      port,
      ...(isName ? { servername } : {}),
      rejectUnauthorized: false,
    });
    const done = (value: number | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => done(null), timeoutMs);
    socket.once("secureConnect", () => {
      const validTo = Date.parse(socket.getPeerCertificate().valid_to ?? "");
      done(Number.isFinite(validTo) ? validTo : null);
    });
    socket.once("error", () => done(null));
  });
}
