import { describe, expect, test } from "bun:test";
import { jwtSigningKey, signJwt, verifyJwt } from "./auth.jwt.ts";

const key = jwtSigningKey(new Uint8Array(32).fill(7));
const claims = { sub: "user", org: "org", iat: 1000, exp: 2000, pv: "abc" };
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("JWT HS256", () => {
  test("a signed token verifies until it expires", () => {
    const token = signJwt(claims, key);
    expect(verifyJwt(token, key, 1999)).toEqual(claims);
    expect(verifyJwt(token, key, 2000)).toBeNull();
  });

  test("another server's secret does not verify", () => {
    const other = jwtSigningKey(new Uint8Array(32).fill(8));
    expect(verifyJwt(signJwt(claims, key), other, 1500)).toBeNull();
  });

  test("a changed payload does not verify", () => {
    const [header, , signature] = signJwt(claims, key).split(".");
    const forged = `${header}.${b64({ ...claims, sub: "admin" })}.${signature}`;
    expect(verifyJwt(forged, key, 1500)).toBeNull();
  });

  test("alg none and malformed tokens are refused", () => {
    const none = `${b64({ alg: "none", typ: "JWT" })}.${b64(claims)}.`;
    for (const token of [none, "", "a.b", "a.b.c.d", `${signJwt(claims, key)}x`]) {
      expect(verifyJwt(token, key, 1500)).toBeNull();
    }
  });
});
