// API keys v2 (decisions.md §15): what a key may carry besides its name, checked when it is
// made, and the checks the guard runs on each use. Pure: time and addresses are passed in.
import { BlockList, isIP } from "node:net";
import { isoAt } from "../shared/clock.ts";
import type { FieldErrors } from "../shared/errors.ts";
import { ROLES, type Role } from "./auth.model.ts";

/** The limits a key was made with; every one is optional, and none means today's owner key. */
export interface ApiKeyLimits {
  role: Role;
  expiresAt: string | null;
  rateLimitPerMinute: number | null;
  allowedIps: string[] | null;
}

export const UNLIMITED: ApiKeyLimits = {
  role: "owner",
  expiresAt: null,
  rateLimitPerMinute: null,
  allowedIps: null,
};

/** Generous bounds: a list longer than this is a mistake, not a policy. */
const MAX_ALLOWED_IPS = 100;
const MAX_RATE_PER_MINUTE = 1_000_000;
export const DAY_MS = 86_400_000;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
/** Days the usage answer covers, today included. */
export const USAGE_DAYS = 30;

/** A CIDR (`10.0.0.0/8`, `2001:db8::/32`) or a single address, in its canonical spelling; null if neither. */
export function normalizeCidr(raw: unknown): string | null {
  if (typeof raw !== "string") return null;
  const [address = "", bits, extra] = raw.trim().split("/");
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return null;
  if (bits === undefined) return `${address}/${family === 4 ? 32 : 128}`;
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > (family === 4 ? 32 : 128)) return null;
  return `${address}/${Number(bits)}`;
}

/**
 * Validates the v2 fields of a create body; errors are keyed by field for a 422. `expires_at`
 * must be a time in the future of `now`, so a key is never born dead.
 */
export function parseApiKeyLimits(
  body: Record<string, unknown>,
  now: number,
): { limits: ApiKeyLimits; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const limits: ApiKeyLimits = { ...UNLIMITED };
  if (body.role !== undefined) {
    if (ROLES.includes(body.role as Role)) limits.role = body.role as Role;
    else errors.role = [`must be one of ${ROLES.join(", ")}`];
  }
  if (body.expires_at !== undefined && body.expires_at !== null) {
    const raw = body.expires_at;
    // Date.parse also reads "March 7" and friends; an API takes one unambiguous spelling.
    const at = typeof raw === "string" && ISO_TIME.test(raw) ? Date.parse(raw) : Number.NaN;
    if (Number.isNaN(at)) errors.expires_at = ["must be an ISO 8601 time"];
    else if (at <= now) errors.expires_at = ["must be in the future"];
    else limits.expiresAt = isoAt(at);
  }
  const rate = body.rate_limit_per_minute;
  if (rate !== undefined && rate !== null) {
    if (Number.isInteger(rate) && (rate as number) >= 1 && (rate as number) <= MAX_RATE_PER_MINUTE)
      limits.rateLimitPerMinute = rate as number;
    else errors.rate_limit_per_minute = [`must be a whole number from 1 to ${MAX_RATE_PER_MINUTE}`];
  }
  if (body.allowed_ips !== undefined && body.allowed_ips !== null) {
    const ips = parseAllowedIps(body.allowed_ips);
    if (typeof ips === "string") errors.allowed_ips = [ips];
    else limits.allowedIps = ips;
  }
  return { limits, errors };
}

function parseAllowedIps(raw: unknown): string[] | string {
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_ALLOWED_IPS) {
    return `must be a list of 1 to ${MAX_ALLOWED_IPS} addresses or CIDRs`;
  }
  const cidrs: string[] = [];
  for (const entry of raw) {
    const cidr = normalizeCidr(entry);
    if (!cidr) return `${JSON.stringify(entry)} is not an IP address or CIDR`;
    if (!cidrs.includes(cidr)) cidrs.push(cidr);
  }
  return cidrs;
}

/** True once `now` has reached the key's expiry. */
export const isExpired = (expiresAt: string | null, now: number): boolean =>
  expiresAt !== null && Date.parse(expiresAt) <= now;

/**
 * A matcher for a key's allowlist. An unknown address never matches: a key with an allowlist
 * fails closed wherever the client's address cannot be told.
 */
export function allowlistMatcher(cidrs: readonly string[]): (ip: string | null) => boolean {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address = "", bits = ""] = cidr.split("/");
    list.addSubnet(address, Number(bits), isIP(address) === 6 ? "ipv6" : "ipv4");
  }
  return (ip) => {
    const family = ip === null ? 0 : isIP(ip);
    if (family === 0) return false;
    return list.check(ip as string, family === 6 ? "ipv6" : "ipv4");
  };
}

/** The UTC day (`YYYY-MM-DD`) of an instant: usage is counted per day. */
export const usageDate = (atMs: number): string => isoAt(atMs).slice(0, 10);

/** The last `USAGE_DAYS` days up to `now`, oldest first, with zeros where nothing was counted. */
export function usageDays(
  counted: ReadonlyMap<string, { requests: number; errors: number }>,
  now: number,
): { date: string; requests: number; errors: number }[] {
  const days = [];
  for (let back = USAGE_DAYS - 1; back >= 0; back--) {
    const date = usageDate(now - back * DAY_MS);
    const day = counted.get(date);
    days.push({ date, requests: day?.requests ?? 0, errors: day?.errors ?? 0 });
  }
  return days;
}
