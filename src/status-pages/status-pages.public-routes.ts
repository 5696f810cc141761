import { Elysia } from "elysia";
import { UI_SECURITY_HEADERS } from "../http/ui.routes.ts";
import { itemOf, overallUptime, renderBadge } from "./status-pages.badge.ts";
import type { Rendered } from "./status-pages.cache.ts";
import { pageStylesheet } from "./status-pages.css.ts";
import { renderNotFound, renderPage } from "./status-pages.html.ts";
import { feedOf, type PublicDeps, type PublicView, publicView } from "./status-pages.public.ts";

/** Browsers and proxies may reuse an answer this long; the server's own cache is as short. */
export const PUBLIC_MAX_AGE_SECONDS = 5;
const HTML = "text/html; charset=utf-8";

/** The UI's CSP, with the page's logo allowed from its own origin (and nothing else). */
function securityHeaders(logoUrl: string | null): Record<string, string> {
  const headers = { ...UI_SECURITY_HEADERS };
  if (logoUrl) {
    const origin = new URL(logoUrl).origin;
    headers["content-security-policy"] = (headers["content-security-policy"] ?? "").replace(
      "img-src 'self' data:",
      `img-src 'self' data: ${origin}`,
    );
  }
  return headers;
}

/** An answer of the cache: 304 when the client holds these bytes already. */
export function answer(request: Request, rendered: Rendered, logoUrl: string | null): Response {
  const headers: Record<string, string> = {
    ...securityHeaders(logoUrl),
    "content-type": rendered.contentType,
    "cache-control": `public, max-age=${PUBLIC_MAX_AGE_SECONDS}`,
    etag: rendered.etag,
  };
  const held = request.headers.get("if-none-match");
  if (held?.split(",").some((tag) => tag.trim() === rendered.etag)) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(rendered.body, { headers });
}

export function notFoundPage(): Response {
  return new Response(renderNotFound(), {
    status: 404,
    headers: { ...UI_SECURITY_HEADERS, "content-type": HTML, "cache-control": "no-cache" },
  });
}

/** The page's HTML (the public URL itself, and a custom domain's `/`). */
export function htmlAnswer(request: Request, view: PublicView, deps: PublicDeps): Response {
  const rendered = deps.cache.rendered(view.page.slug, "html", () => ({
    body: renderPage(view.snapshot, deps.subscribeFormFor?.(view.page) ?? ""),
    contentType: HTML,
  }));
  return answer(request, rendered, view.page.logoUrl);
}

/**
 * `/status/{slug}` (HTML), `/status/{slug}.json` (the same data) and the page's stylesheet
 * (decisions.md §9): no credentials; an unknown slug is a 404 page.
 */
export function publicRoutes(deps: PublicDeps) {
  return new Elysia({ prefix: "/status" })
    .get(
      "/:slug",
      async ({ params, request }) => {
        const json = params.slug.endsWith(".json");
        const slug = json ? params.slug.slice(0, -5) : params.slug;
        const view = await publicView(slug, deps);
        if (!view && json) return Response.json({ error: "not_found" }, { status: 404 });
        if (!view) return notFoundPage();
        if (!json) return htmlAnswer(request, view, deps);
        const rendered = deps.cache.rendered(slug, "json", () => ({
          body: JSON.stringify({ data: view.snapshot }),
          contentType: "application/json",
        }));
        return answer(request, rendered, view.page.logoUrl);
      },
      { detail: { hide: true } },
    )
    .get(
      "/:slug/style.css",
      async ({ params, request }) => {
        const view = await publicView(params.slug, deps);
        if (!view) return notFoundPage();
        const rendered = deps.cache.rendered(params.slug, "css", () => ({
          body: pageStylesheet(view.page.primaryColor),
          contentType: "text/css; charset=utf-8",
        }));
        return answer(request, rendered, null);
      },
      { detail: { hide: true } },
    )
    .get(
      "/:slug/badge.svg",
      async ({ params, query, request }) => {
        const view = await publicView(params.slug, deps);
        if (!view) return notFoundPage();
        const monitorId = typeof query.monitor === "string" ? query.monitor : null;
        const item = monitorId ? itemOf(view.snapshot, monitorId) : null;
        if (monitorId && !item) return notFoundPage();
        const rendered = deps.cache.rendered(params.slug, `badge:${monitorId ?? ""}`, () => ({
          body: renderBadge("uptime", item ? item.percent_90d : overallUptime(view.snapshot)),
          contentType: "image/svg+xml; charset=utf-8",
        }));
        return answer(request, rendered, null);
      },
      { detail: { hide: true } },
    )
    .get(
      "/:slug/feed.atom",
      async ({ params, request, server }) => {
        const view = await publicView(params.slug, deps);
        if (!view) return notFoundPage();
        const pageUrl = `${deps.publicBaseUrl(request, server)}/status/${view.page.slug}`;
        const body = await deps.cache.memo(params.slug, `feed-body:${pageUrl}`, () =>
          feedOf(view, pageUrl, deps),
        );
        const rendered = deps.cache.rendered(params.slug, `feed:${pageUrl}`, () => ({
          body,
          contentType: "application/atom+xml; charset=utf-8",
        }));
        return answer(request, rendered, null);
      },
      { detail: { hide: true } },
    );
}
