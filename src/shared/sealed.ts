import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/**
 * Encryption at rest for values Weir must read back (organization secrets, destination signing
 * secrets): AES-256-GCM under a key derived with HKDF-SHA256 from the server secret and a
 * purpose, so each use has its own key. The associated data ties a ciphertext to its row (e.g.
 * organization and name): a value copied into another row does not open.
 */
export interface Sealer {
  seal(plaintext: string, associatedData: string): string;
  /** Throws SealedValueError when the value was altered, moved or sealed under another key. */
  open(sealed: string, associatedData: string): string;
}

export class SealedValueError extends Error {
  constructor() {
    super("sealed value cannot be opened");
  }
}

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function createSealer(serverSecret: Uint8Array, purpose: string): Sealer {
  const key = Buffer.from(
    hkdfSync("sha256", serverSecret, "weir", `weir/${purpose}/${VERSION}`, 32),
  );
  return {
    seal(plaintext, associatedData) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, iv).setAAD(Buffer.from(associatedData));
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      const packed = Buffer.concat([iv, body, cipher.getAuthTag()]);
      return `${VERSION}.${packed.toString("base64url")}`;
    },
    open(sealed, associatedData) {
      const [version, encoded] = sealed.split(".", 2);
      if (version !== VERSION || encoded === undefined) throw new SealedValueError();
      const packed = Buffer.from(encoded, "base64url");
      if (packed.length < IV_BYTES + TAG_BYTES) throw new SealedValueError();
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, packed.subarray(0, IV_BYTES));
        decipher.setAAD(Buffer.from(associatedData));
        decipher.setAuthTag(packed.subarray(packed.length - TAG_BYTES));
        const body = packed.subarray(IV_BYTES, packed.length - TAG_BYTES);
        return Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
      } catch {
        throw new SealedValueError();
      }
    },
  };
}
