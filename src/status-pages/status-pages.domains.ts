import { hostOf } from "./status-pages.model.ts";
import type { PublicDeps } from "./status-pages.public.ts";
import { publicView } from "./status-pages.public.ts";
import { htmlAnswer } from "./status-pages.public-routes.ts";

const MAX_REMEMBERED_HOSTS = 1000;

/**
 * Hosts that are some page's `custom_domain`, looked up once and remembered (misses too, so
 * the app's own host costs one map lookup), forgotten on every write to any page.
 */
export function createDomainDirectory(findSlug: (host: string) => Promise<string | null>) {
  const known = new Map<string, string | null>();
  // A lookup that a write overtook answers its caller but is not remembered: it may be stale.
  let writes = 0;
  return {
    async slugOf(host: string): Promise<string | null> {
      const hit = known.get(host);
      if (hit !== undefined) return hit;
      const before = writes;
      const slug = await findSlug(host);
      if (before !== writes) return slug;
      if (known.size >= MAX_REMEMBERED_HOSTS) known.clear();
      known.set(host, slug);
      return slug;
    },
    forget: () => {
      known.clear();
      writes += 1;
    },
  };
}

export type DomainDirectory = ReturnType<typeof createDomainDirectory>;

/**
 * The page for a request whose Host is a page's custom domain (decisions.md §15), or
 * undefined. The app's catch-all asks it for `/` only; the instance's own host (`base_url`) is
 * never looked up, and a page cannot be given it, so a page cannot take the app's front door.
 */
export function customDomainPage(
  deps: PublicDeps,
  domains: DomainDirectory,
  ownHost: string | null,
) {
  return async (request: Request): Promise<Response | undefined> => {
    if (request.method !== "GET" && request.method !== "HEAD") return undefined;
    const host = hostOf(request.headers.get("host"));
    if (!host || host === ownHost) return undefined;
    const slug = await domains.slugOf(host);
    if (!slug) return undefined;
    const view = await publicView(slug, deps);
    return view ? htmlAnswer(request, view, deps) : undefined;
  };
}
