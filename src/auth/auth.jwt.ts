import { createHmac, timingSafeEqual } from "node:crypto";

/** The claims Weir puts in a login token (decisions.md §2), plus `pv`, the password version. */
export interface TokenClaims {
  sub: string;
  org: string;
  iat: number;
  exp: number;
  /** Changes when the password does, so a reset ends every earlier session. */
  pv: string;
}

const HEADER = base64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));

/** Derives the token-signing key from the server secret, so the secret itself signs nothing. */
export function jwtSigningKey(secretKey: Uint8Array): Buffer {
  return createHmac("sha256", secretKey).update("weir/jwt-signing-key/v1").digest();
}

/** Signs `claims` as a compact HS256 JWT. */
export function signJwt(claims: TokenClaims, key: Buffer): string {
  const body = `${HEADER}.${base64url(JSON.stringify(claims))}`;
  return `${body}.${signature(body, key)}`;
}

/**
 * Verifies signature (constant time), algorithm and expiry against `nowSeconds`; returns the
 * claims or null. Only HS256 with our header is accepted, so `alg: none` tricks go nowhere.
 */
export function verifyJwt(token: string, key: Buffer, nowSeconds: number): TokenClaims | null {
  const claims = readJwt(token, key);
  return claims && claims.exp > nowSeconds ? claims : null;
}

/** Verifies signature, algorithm and shape only: the claims of a genuine token, expired or not. */
export function readJwt(token: string, key: Buffer): TokenClaims | null {
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== HEADER) return null;
  const [header, payload, given] = parts as [string, string, string];
  const expected = Buffer.from(signature(`${header}.${payload}`, key));
  const actual = Buffer.from(given);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return null;
  return parseClaims(payload);
}

function parseClaims(payload: string): TokenClaims | null {
  try {
    const value = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as TokenClaims;
    const ok =
      typeof value.sub === "string" &&
      typeof value.org === "string" &&
      typeof value.pv === "string" &&
      Number.isFinite(value.iat) &&
      Number.isFinite(value.exp);
    return ok ? value : null;
  } catch {
    return null;
  }
}

function signature(data: string, key: Buffer): string {
  return createHmac("sha256", key).update(data).digest("base64url");
}

function base64url(text: string): string {
  return Buffer.from(text).toString("base64url");
}
