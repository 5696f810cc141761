/**
 * How bus events travel between nodes as NOTIFY payloads. PostgreSQL refuses a payload of 8000
 * bytes or more; an event that does not fit (a capture with a large body) goes as numbered parts,
 * sent in one transaction so that they arrive together or not at all.
 */

/** The largest payload sent as one notification (PostgreSQL's limit is below 8000 bytes). */
export const NOTIFY_PAYLOAD_LIMIT = 7900;
/** Base64 characters per part: with the part's envelope it stays under the limit. */
const PART_CHARS = 7600;

export interface BridgedEvent {
  origin: string;
  event: string;
  payload: unknown;
}

type Whole = { o: string; e: string; p: unknown };
type Part = { o: string; m: number; i: number; n: number; d: string };

/** Bytes (captured bodies) survive JSON as `{"$bytes": base64}`. */
function replacer(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const original = this[key];
  if (original instanceof Uint8Array) {
    return {
      $bytes: Buffer.from(original.buffer, original.byteOffset, original.length).toString("base64"),
    };
  }
  return value;
}

function reviver(_key: string, value: unknown): unknown {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const bytes = (value as { $bytes?: unknown }).$bytes;
    if (typeof bytes === "string" && Object.keys(value).length === 1) {
      return new Uint8Array(Buffer.from(bytes, "base64"));
    }
  }
  return value;
}

/** Encodes one event from `origin` as the notifications to send, in order. */
export function createEncoder(origin: string) {
  let nextMessage = 0;
  return (event: string, payload: unknown): string[] => {
    const whole = JSON.stringify({ o: origin, e: event, p: payload } satisfies Whole, replacer);
    if (Buffer.byteLength(whole) <= NOTIFY_PAYLOAD_LIMIT) return [whole];
    const data = Buffer.from(whole).toString("base64");
    const count = Math.ceil(data.length / PART_CHARS);
    const m = nextMessage++;
    return Array.from({ length: count }, (_, i) =>
      JSON.stringify({
        o: origin,
        m,
        i,
        n: count,
        d: data.slice(i * PART_CHARS, (i + 1) * PART_CHARS),
      } satisfies Part),
    );
  };
}

/**
 * Decodes what `self` hears: its own notifications are dropped, parts are held until the last
 * one arrives. `reset()` forgets unfinished parts (after a reconnect their rest never comes).
 */
export function createDecoder(self: string) {
  const partial = new Map<string, string[]>();
  const wholeOf = (whole: Whole): BridgedEvent => ({
    origin: whole.o,
    event: whole.e,
    payload: whole.p,
  });
  return {
    accept(text: string): BridgedEvent | null {
      const message = JSON.parse(text, reviver) as Partial<Whole & Part>;
      if (typeof message.o !== "string" || message.o === self) return null;
      if (typeof message.e === "string") return wholeOf(message as Whole);
      const { m, i, n, d } = message;
      if (typeof m !== "number" || typeof i !== "number" || typeof n !== "number") return null;
      if (typeof d !== "string") return null;
      const key = `${message.o}/${m}`;
      const parts = partial.get(key) ?? [];
      partial.set(key, parts);
      parts[i] = d;
      if (parts.filter((part) => part !== undefined).length < n) return null;
      partial.delete(key);
      return wholeOf(JSON.parse(Buffer.from(parts.join(""), "base64").toString(), reviver));
    },
    reset(): void {
      partial.clear();
    },
  };
}
