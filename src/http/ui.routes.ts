import { existsSync, statSync } from "node:fs";
import { resolve, sep } from "node:path";
import { Elysia } from "elysia";
import { notFound } from "../shared/errors.ts";
import { UI_ASSETS } from "./ui-assets.generated.ts";

/** Paths the UI must never answer, so their 404s stay JSON. */
const NOT_UI = /^\/(api|debug|w|in|socket|status|healthz|metrics)(\/|$)/;
const HASHED = /^\/assets\//;
const HAS_EXTENSION = /\.[a-z0-9]+$/i;

/**
 * The UI's own security headers (decisions.md §14): scripts, styles and connections only from
 * Weir itself (no inline script; `data:` images for the favicon), never framed, no referrer
 * leaked to links the user follows (capture URLs, docs).
 */
export const UI_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
};

export interface UiOptions {
  /**
   * Serve the UI from this directory (a `ui/dist` build) instead of the files embedded in the
   * binary. Read on every request, so a rebuild shows without a restart (`WEIR_UI_DIR`).
   */
  dir?: string;
  /**
   * Asked first for `/`: the page of a host that is a status page's custom domain, or
   * undefined for the app's own hosts.
   */
  hostPage?: (request: Request) => Promise<Response | undefined>;
}

/** The file serving `path`: embedded by default, or under `dir`; never outside it. */
function fileLocator(dir: string | undefined): (path: string) => string | undefined {
  if (!dir) return (path) => UI_ASSETS[path];
  const root = resolve(dir);
  return (path) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      return undefined;
    }
    const file = resolve(root, `.${decoded}`);
    if (!file.startsWith(root + sep)) return undefined;
    return existsSync(file) && statSync(file).isFile() ? file : undefined;
  };
}

/**
 * Serves the web UI: exact asset paths (hashed ones cached for a year), `index.html` at `/`
 * (never cached, so a new binary's UI shows at once), and the SPA fallback for other GETs that
 * are not API, capture or socket paths.
 */
export function uiRoutes(options: UiOptions = {}) {
  const locate = fileLocator(options.dir);
  return new Elysia({ name: "weir-ui", seed: options.dir ?? "" }).get(
    "/*",
    async ({ path, set, request }) => {
      const hosted = path === "/" ? await options.hostPage?.(request) : undefined;
      if (hosted) return hosted;
      Object.assign(set.headers, UI_SECURITY_HEADERS);
      const asset = locate(path === "/" ? "/index.html" : path);
      if (asset) {
        set.headers["cache-control"] = HASHED.test(path)
          ? "public, max-age=31536000, immutable"
          : "no-cache";
        return Bun.file(asset);
      }
      const index = locate("/index.html");
      if (NOT_UI.test(path) || !index || HAS_EXTENSION.test(path)) throw notFound();
      set.headers["cache-control"] = "no-cache";
      return Bun.file(index);
    },
    { detail: { hide: true } },
  );
}
