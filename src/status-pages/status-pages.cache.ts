/** One rendered answer, ready to send again. */
export interface Rendered {
  body: string;
  contentType: string;
  etag: string;
}

/**
 * Renders kept per page for a few seconds: a busy public page is built once per `ttlMs`,
 * whatever the traffic. Bounded (the oldest page goes first) and emptied per page on every
 * write to that page, so an edit shows at once. In memory only: a restart loses nothing.
 */
export function createRenderCache(options: { ttlMs: number; maxPages: number; now: () => number }) {
  const pages = new Map<string, { expiresAt: number; variants: Map<string, unknown> }>();
  const entryOf = (slug: string) => {
    const now = options.now();
    let entry = pages.get(slug);
    if (!entry || entry.expiresAt <= now) {
      entry = { expiresAt: now + options.ttlMs, variants: new Map() };
      pages.delete(slug);
      pages.set(slug, entry);
      if (pages.size > options.maxPages) {
        const oldest = pages.keys().next().value;
        if (oldest !== undefined) pages.delete(oldest);
      }
    }
    return entry;
  };
  return {
    /** A value still fresh for this page, without making room for it (unknown slugs stay out). */
    peek<T>(slug: string, key: string): T | undefined {
      const entry = pages.get(slug);
      if (!entry || entry.expiresAt <= options.now()) return undefined;
      return entry.variants.get(key) as T | undefined;
    },
    /** What `build` gives for this page, built at most once per page and period. */
    memo<T>(slug: string, key: string, build: () => T): T {
      const { variants } = entryOf(slug);
      if (variants.has(key)) return variants.get(key) as T;
      const value = build();
      variants.set(key, value);
      return value;
    },
    /** A rendered answer with its ETag (a hash of the bytes). */
    rendered(slug: string, variant: string, render: () => Omit<Rendered, "etag">): Rendered {
      return this.memo(slug, `answer:${variant}`, () => {
        const fresh = render();
        return { ...fresh, etag: `"${Bun.hash(fresh.body).toString(36)}"` };
      });
    },
    forget(slug: string): void {
      pages.delete(slug);
    },
    get size() {
      return pages.size;
    },
  };
}

export type RenderCache = ReturnType<typeof createRenderCache>;
