/** The first route whose pattern (`/bridges/:id`) fits `path`, with the `:name` segments' values. */
export function matchPath<R extends { path: string }>(
  path: string,
  routes: R[],
): { route: R; params: Record<string, string> } | null {
  const parts = path.split("/").filter(Boolean);
  for (const route of routes) {
    const pattern = route.path.split("/").filter(Boolean);
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const fits = pattern.every((segment, i) => {
      const part = parts[i] ?? "";
      if (segment.startsWith(":")) {
        params[segment.slice(1)] = decodeURIComponent(part);
        return true;
      }
      return segment === part;
    });
    if (fits) return { route, params };
  }
  return null;
}
