import { randomBytes } from "node:crypto";

/** The one source of identifiers and random tokens; passed in so tests may make them predictable. */
export interface Ids {
  /** Time-ordered UUID (v7): rows sort by creation and ids stay unguessable. */
  uuid(): string;
  /** Random base62 string of `length` characters (uniform, no modulo bias). */
  base62(length: number): string;
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Cryptographically random ids. */
export function createIds(): Ids {
  return { uuid: () => Bun.randomUUIDv7(), base62: randomBase62 };
}

function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: rejecting the top of the byte range keeps every character equally likely.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}
