// The host side of a host function call: decode the script's arguments, call the function,
// encode its result. Only JSON crosses, so the script never holds a host object and the host
// never receives anything but plain data (a `__proto__` key stays an own property).
import type { HostFunction } from "./sandbox.model.ts";
import type { HostReply } from "./sandbox.protocol.ts";

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Calls `name` of `functions` with the JSON-encoded arguments; never throws. */
export async function callHostFunction(
  functions: Record<string, HostFunction>,
  name: string,
  argsJson: string,
  maxResultChars: number,
): Promise<HostReply> {
  try {
    const fn = Object.hasOwn(functions, name) ? functions[name] : undefined;
    if (typeof fn !== "function") return { ok: false, message: `no host function ${name}` };
    const args: unknown = JSON.parse(argsJson);
    if (!Array.isArray(args)) return { ok: false, message: "host call arguments must be a list" };
    const json = JSON.stringify((await fn(...args)) ?? null) ?? "null";
    if (json.length > maxResultChars) {
      return { ok: false, message: `result of host function ${name} too large` };
    }
    return { ok: true, json };
  } catch (error) {
    return { ok: false, message: describe(error) };
  }
}
