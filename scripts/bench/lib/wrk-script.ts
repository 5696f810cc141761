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

/**
 * Lua that builds each request's body with a fresh counter where `token` was. The counter starts
 * from the clock (in units of 10 µs), so a measurement never repeats its warm-up's bodies.
 */
function uniqueBodyLua(body: string, token: string): string[] {
  const at = body.indexOf(token);
  if (at < 0 || token.length < 14 || !/^0+$/.test(token))
    throw new Error("uniqueToken must be 14 or more zeros found in the body");
  return [
    `local prefix = ${luaString(body.slice(0, at))}`,
    `local suffix = ${luaString(body.slice(at + token.length))}`,
    "local counter = os.time() * 100000",
    "request = function()",
    "  counter = counter + 1",
    `  return wrk.format(nil, nil, nil, prefix .. string.format("%0${token.length}d", counter) .. suffix)`,
    "end",
  ];
}

/** The Lua wrk loads with -s: sets method, headers and body for the default request. */
export function buildWrkScript(request: RequestSpec): string {
  const lines = [
    `wrk.method = ${luaString(request.method)}`,
    `wrk.path = ${luaString(request.path)}`,
  ];
  const headers = { ...request.headers };
  const body =
    request.body ?? (request.bodyBytes === undefined ? undefined : jsonBody(request.bodyBytes));
  if (body !== undefined) {
    headers["Content-Type"] ??= "application/json";
    lines.push(`wrk.body = ${luaString(body)}`);
  }
  for (const [name, value] of Object.entries(headers)) {
    lines.push(`wrk.headers[${luaString(name)}] = ${luaString(value)}`);
  }
  if (body !== undefined && request.uniqueToken !== undefined)
    lines.push(...uniqueBodyLua(body, request.uniqueToken));
  return `${lines.join("\n")}\n`;
}
