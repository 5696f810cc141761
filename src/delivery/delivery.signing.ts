import { createHmac, randomBytes } from "node:crypto";

/**
 * Standard Webhooks signing of outbound HTTP deliveries (decisions.md §8): `webhook-id`,
 * `webhook-timestamp` (seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 of
 * "id.timestamp.body">`, keyed by the bytes behind a destination's `whsec_` secret. After a
 * rotation both the new and the replaced secret sign, new first, space-separated.
 */
const PREFIX = "whsec_";
const SECRET_BYTES = 32;

/** A new destination secret: `whsec_` + base64 of 32 random bytes. */
export function generateSigningSecret(): string {
  return `${PREFIX}${randomBytes(SECRET_BYTES).toString("base64")}`;
}

/** Whether `secret` has the `whsec_<base64 of 24–64 bytes>` shape. */
export function isSigningSecret(secret: string): boolean {
  if (!secret.startsWith(PREFIX)) return false;
  const encoded = secret.slice(PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return false;
  const length = Buffer.from(encoded, "base64").length;
  return length >= 24 && length <= 64;
}

export interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/** The three headers for one attempt; `secrets` in order (the current one first). */
export function signDelivery(input: {
  id: string;
  timestampSeconds: number;
  body: Uint8Array | string;
  secrets: string[];
}): SignedHeaders {
  const timestamp = String(Math.floor(input.timestampSeconds));
  const signatures = input.secrets.map((secret) => {
    const key = Buffer.from(secret.slice(PREFIX.length), "base64");
    const mac = createHmac("sha256", key).update(`${input.id}.${timestamp}.`).update(input.body);
    return `v1,${mac.digest("base64")}`;
  });
  return {
    "webhook-id": input.id,
    "webhook-timestamp": timestamp,
    "webhook-signature": signatures.join(" "),
  };
}
