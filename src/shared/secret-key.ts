import { randomBytes } from "node:crypto";
import { closeSync, existsSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { StartupError } from "../db/db.open.ts";

export const SECRET_KEY_FILE = "secret.key";
const KEY_TEXT = /^[0-9a-f]{64}$/;

/**
 * The server secret (signs tokens, encrypts secrets at rest): `WEIR_SECRET_KEY` when set, else
 * `<dataDir>/secret.key`, created on first start with mode 0600 so only the owner can read it.
 */
export function loadSecretKey(dataDir: string, override: string): Uint8Array {
  if (override !== "")
    return new Bun.CryptoHasher("sha256").update(override).digest() as Uint8Array;
  const path = join(dataDir, SECRET_KEY_FILE);
  if (!existsSync(path)) createKeyFile(path);
  if ((statSync(path).mode & 0o077) !== 0) {
    throw new StartupError(`${path} is readable by others; run: chmod 600 ${path}`);
  }
  const text = readFileSync(path, "utf8").trim();
  if (!KEY_TEXT.test(text))
    throw new StartupError(`${path} is not a valid Weir secret key (64 hex characters)`);
  return Uint8Array.from(Buffer.from(text, "hex"));
}

function createKeyFile(path: string): void {
  // "wx" fails if another process created it first: the key is never overwritten.
  const fd = openSync(path, "wx", 0o600);
  try {
    writeSync(fd, `${randomBytes(32).toString("hex")}\n`);
  } finally {
    closeSync(fd);
  }
}
