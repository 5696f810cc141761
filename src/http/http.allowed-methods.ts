/** A route as the router lists it. */
export interface RouteEntry {
  method: string;
  path: string;
}

interface CompiledRoute {
  pattern: RegExp;
  method: string;
}

/**
 * Which methods a path is served with, for the 405 of a known path called with another method
 * (decisions.md §14): a 404 there reads as "your endpoint is gone". The UI's catch-all (`/*`,
 * GET only) is left out, or every unknown path would be "GET only". Routes are read lazily
 * and recompiled when their number changes, since rooms mount after the HTTP base is built.
 */
export function createAllowedMethods(routes: () => readonly RouteEntry[]) {
  let compiled: CompiledRoute[] = [];
  let seen = -1;
  return (path: string): string[] => {
    const list = routes();
    if (list.length !== seen) {
      compiled = list.filter((r) => r.path !== "/*" && r.method !== "ALL").map(compile);
      seen = list.length;
    }
    const methods = new Set<string>();
    for (const route of compiled) if (route.pattern.test(path)) methods.add(route.method);
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods].sort();
  };
}

function compile(route: RouteEntry): CompiledRoute {
  const source = route.path
    .replace(/(.)\/$/, "$1")
    .split("/")
    .map((part) => {
      if (part === "*") return ".*";
      if (part.startsWith(":")) return part.endsWith("?") ? "[^/]*" : "[^/]+";
      return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  // A WebSocket route is reached by a GET upgrade.
  const method = route.method.toUpperCase() === "WS" ? "GET" : route.method.toUpperCase();
  return { pattern: new RegExp(`^${source}/?$`), method };
}
