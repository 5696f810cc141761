// Signed tokens of the subscriber flow. Each names its purpose, so a link of one kind is never
// accepted as another, and an expiry; the key is derived from the server secret (as the login
// tokens' is), so the secret itself signs nothing and a new secret voids every link.
import { createHmac, timingSafeEqual } from "node:crypto";

export type TokenPurpose = "form" | "confirm" | "unsubscribe";

export interface TokenClaims {
  purpose: TokenPurpose;
  /** The page for `form`; the subscriber for `confirm` and `unsubscribe`. */
  subject: string;
  /** Seconds since the epoch. */
  expiresAt: number;
}

/** How long each kind of token is good for, in seconds. */
export const TOKEN_TTL_SECONDS: Record<TokenPurpose, number> = {
  // Long enough to fill a form; short enough that a harvested token is of little use.
  form: 2 * 3600,
  confirm: 48 * 3600,
  // An unsubscribe link must keep working in an old mail (RFC 8058 asks nothing less).
  unsubscribe: 10 * 365 * 24 * 3600,
};

export interface Signer {
  sign(purpose: TokenPurpose, subject: string, nowMs: number): string;
  /** The claims of a genuine, unexpired token of that purpose; null otherwise. */
  verify(token: string, purpose: TokenPurpose, nowMs: number): TokenClaims | null;
}

export function createSubscriberSigner(secretKey: Uint8Array): Signer {
  const key = createHmac("sha256", secretKey).update("weir/status-subscribers/v1").digest();
  const mac = (data: string) => createHmac("sha256", key).update(data).digest("base64url");
  return {
    sign(purpose, subject, nowMs) {
      const expiresAt = Math.floor(nowMs / 1000) + TOKEN_TTL_SECONDS[purpose];
      const body = Buffer.from(JSON.stringify([purpose, subject, expiresAt])).toString("base64url");
      return `${body}.${mac(body)}`;
    },
    verify(token, purpose, nowMs) {
      const [body, given, extra] = token.split(".");
      if (!body || !given || extra !== undefined) return null;
      const expected = Buffer.from(mac(body));
      const actual = Buffer.from(given);
      if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return null;
      const claims = parse(body);
      if (!claims || claims.purpose !== purpose) return null;
      return claims.expiresAt * 1000 > nowMs ? claims : null;
    },
  };
}

function parse(body: string): TokenClaims | null {
  try {
    const value = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as unknown;
    if (!Array.isArray(value) || value.length !== 3) return null;
    const [purpose, subject, expiresAt] = value as [unknown, unknown, unknown];
    if (typeof purpose !== "string" || typeof subject !== "string") return null;
    if (typeof expiresAt !== "number" || !Number.isFinite(expiresAt)) return null;
    return { purpose: purpose as TokenPurpose, subject, expiresAt };
  } catch {
    return null;
  }
}
