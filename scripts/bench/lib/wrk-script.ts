/** Builds the Lua script wrk runs for a RequestSpec. Pure, so it is unit-tested. */
import type { RequestSpec } from "./types.ts";

/** A Lua string literal for any text: escapes quotes, backslashes and control bytes. */
export function luaString(text: string): string {
  let out = '"';
  for (const byte of new TextEncoder().encode(text)) {
    if (byte === 0x22 || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`;
    // Decimal escapes keep the literal plain ASCII whatever the body holds.
    else if (byte < 0x20 || byte >= 0x7f) out += `\\${byte.toString().padStart(3, "0")}`;
    else out += String.fromCharCode(byte);
  }
  return `${out}"`;
}

/**
 * A JSON object of exactly `bytes` bytes, shaped like a webhook payload (some fields, one long
 * string). Below the size of the skeleton it is padded from `{}` with spaces, still valid JSON.
 */
export function jsonBody(bytes: number): string {
  if (!Number.isInteger(bytes) || bytes < 2)
    throw new Error(`body size must be an integer >= 2, got ${bytes}`);
  const skeleton = (pad: string) => JSON.stringify({ event: "bench.ping", id: 1, data: pad });
  const empty = skeleton("");
  if (bytes < empty.length) return `{${" ".repeat(bytes - 2)}}`;
  return skeleton("x".repeat(bytes - empty.length));
}

/** The Lua wrk loads with -s: sets method, headers and body for the default request. */
export function buildWrkScript(request: RequestSpec): string {
  const lines = [
    `wrk.method = ${luaString(request.method)}`,
    `wrk.path = ${luaString(request.path)}`,
  ];
  const headers = { ...request.headers };
  if (request.bodyBytes !== undefined) {
    headers["Content-Type"] ??= "application/json";
    lines.push(`wrk.body = ${luaString(jsonBody(request.bodyBytes))}`);
  }
  for (const [name, value] of Object.entries(headers)) {
    lines.push(`wrk.headers[${luaString(name)}] = ${luaString(value)}`);
  }
  return `${lines.join("\n")}\n`;
}
