/** A validator turns a raw value (flag, env text or TOML value) into a typed one, or throws why not. */
export type Validator<T> = (raw: unknown) => T;

const text = (raw: unknown) => (typeof raw === "string" ? raw.trim() : String(raw));

/** Whole number within bounds; accepts numbers and numeric text. */
export const integer =
  (min: number, max: number): Validator<number> =>
  (raw) => {
    const value = typeof raw === "number" ? raw : Number(text(raw));
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new Error(`must be a whole number from ${min} to ${max}`);
    }
    return value;
  };

/** One of a fixed list of words. */
export const oneOf =
  <const T extends string>(choices: readonly T[]): Validator<T> =>
  (raw) => {
    const value = text(raw);
    if (!choices.includes(value as T)) throw new Error(`must be one of ${choices.join(", ")}`);
    return value as T;
  };

/** Non-empty text. */
export const nonEmpty: Validator<string> = (raw) => {
  const value = text(raw);
  if (value === "") throw new Error("must not be empty");
  return value;
};

/** Any text, empty allowed. */
export const anyText: Validator<string> = (raw) => (raw === undefined ? "" : text(raw));

/** `postgres://` or `postgresql://` with a host, or empty (SQLite in the data dir). */
export const optionalPostgresUrl: Validator<string> = (raw) => {
  const value = text(raw);
  if (value === "") return "";
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {}
  if (!url || (url.protocol !== "postgres:" && url.protocol !== "postgresql:") || !url.hostname) {
    throw new Error("must be postgres://user:password@host[:port]/database (or postgresql://…)");
  }
  return value;
};

/** A URL as it may be shown: its password, if any, replaced by `***`. */
export function urlWithoutPassword(value: string): string {
  try {
    const url = new URL(value);
    if (url.password === "") return value;
    url.password = "***";
    return url.toString();
  } catch {
    return "(redacted)";
  }
}

/** An absolute http(s) URL, kept without its trailing slash; empty means "derive it". */
export const optionalHttpUrl: Validator<string> = (raw) => {
  const value = text(raw).replace(/\/+$/, "");
  if (value === "") return "";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error("must be an absolute http(s) URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error("must be an absolute http(s) URL");
  }
  return value;
};

/** `smtp://` (STARTTLS when offered) or `smtps://` (TLS from the start), or empty. */
export const optionalSmtpUrl: Validator<string> = (raw) => {
  const value = text(raw);
  if (value === "") return "";
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {}
  if (!url || (url.protocol !== "smtp:" && url.protocol !== "smtps:") || url.hostname === "") {
    throw new Error("must be smtp://[user:password@]host[:port] or smtps://…");
  }
  return value;
};

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** A duration such as `90s`, `15m`, `24h`, `7d` or plain milliseconds; returns milliseconds. */
export const duration: Validator<number> = (raw) => {
  const match = /^(\d+)(ms|s|m|h|d)?$/.exec(text(raw));
  if (!match?.[1]) throw new Error("must be a duration such as 500ms, 90s, 15m, 24h or 7d");
  const ms = Number(match[1]) * (DURATION_UNITS[match[2] ?? "ms"] ?? 1);
  if (ms <= 0) throw new Error("must be longer than zero");
  return ms;
};

/** Comma-separated IPv4/IPv6 CIDRs (a bare address means a single host). */
export const cidrList: Validator<string[]> = (raw) => {
  const items = Array.isArray(raw) ? raw.map(text) : text(raw).split(",");
  const cidrs = items.map((item) => item.trim()).filter(Boolean);
  for (const cidr of cidrs) {
    if (!isCidr(cidr)) throw new Error(`"${cidr}" is not an IP address or CIDR`);
  }
  return cidrs;
};

function isCidr(value: string): boolean {
  const [address = "", bits, extra] = value.split("/");
  if (extra !== undefined) return false;
  const family = isIPv4(address) ? 4 : address.includes(":") && isIPv6(address) ? 6 : 0;
  if (family === 0) return false;
  if (bits === undefined) return true;
  const max = family === 4 ? 32 : 128;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= max;
}

function isIPv4(value: string): boolean {
  const parts = value.split(".");
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

function isIPv6(value: string): boolean {
  try {
    return new URL(`http://[${value}]/`).hostname.length > 2;
  } catch {
    return false;
  }
}

/** Bytes a server secret must carry: HS256 and AES-256 keys are 32 bytes. */
export const SECRET_KEY_MIN_BYTES = 32;

/**
 * The server secret: empty (use the key file), or at least 32 bytes written as hex or base64.
 * A short passphrase would make every login token brute-forceable offline.
 */
export const secretKeyText: Validator<string> = (raw) => {
  const value = anyText(raw);
  if (value === "" || secretKeyBytes(value) >= SECRET_KEY_MIN_BYTES) return value;
  throw new Error(
    `must carry at least ${SECRET_KEY_MIN_BYTES} bytes as hex (64 characters) or base64 (44); make one with: openssl rand -hex 32`,
  );
};

/** How many bytes `text` encodes: as hex when it is only hex digits, else as base64 (or 0). */
function secretKeyBytes(text: string): number {
  if (/^(?:[0-9a-fA-F]{2})+$/.test(text)) return text.length / 2;
  for (const encoding of ["base64", "base64url"] as const) {
    const bytes = Buffer.from(text, encoding);
    // Only canonical text counts, so a passphrase is not read as base64 by accident.
    if (bytes.length > 0 && bytes.toString(encoding) === text) return bytes.length;
  }
  return 0;
}
