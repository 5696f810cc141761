import { Elysia } from "elysia";
import { notFound } from "../shared/errors.ts";
import { UI_ASSETS } from "./ui-assets.generated.ts";

/** Paths the UI must never answer, so their 404s stay JSON. */
const NOT_UI = /^\/(api|debug|w|in|socket|status|healthz|metrics)(\/|$)/;
const HASHED = /\/assets\//;

/**
 * Serves the embedded web UI: exact asset paths, `index.html` at `/`, and the SPA fallback for
 * other GETs that are not API, capture or socket paths.
 */
export function uiRoutes() {
  return new Elysia({ name: "weir-ui" }).get(
    "/*",
    ({ path, set }) => {
      const asset = UI_ASSETS[path === "/" ? "/index.html" : path];
      if (asset) {
        set.headers["cache-control"] = HASHED.test(path)
          ? "public, max-age=31536000, immutable"
          : "no-cache";
        return Bun.file(asset);
      }
      const index = UI_ASSETS["/index.html"];
      if (NOT_UI.test(path) || !index || /\.[a-z0-9]+$/i.test(path)) throw notFound();
      set.headers["cache-control"] = "no-cache";
      return Bun.file(index);
    },
    { detail: { hide: true } },
  );
}
