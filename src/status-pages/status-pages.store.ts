import type { PageComponent, PageMonitor, StatusPage } from "./status-pages.model.ts";

/** How a page's insert or update ended: a slug or custom domain another page holds refuses it. */
export type PageWriteOutcome = "ok" | "slug_taken" | "domain_taken";

/**
 * The pages' own rows, their monitors and components, on SQLite or PostgreSQL. Pages are read
 * by organization, or by slug and domain for the public side; monitors and components by page.
 */
export interface StatusPagesStore {
  insert(page: StatusPage): Promise<PageWriteOutcome>;
  update(page: StatusPage): Promise<PageWriteOutcome>;
  find(organizationId: string, id: string): Promise<StatusPage | null>;
  findBySlug(slug: string): Promise<StatusPage | null>;
  findByDomain(domain: string): Promise<StatusPage | null>;
  /** The organization's pages, newest first. */
  list(organizationId: string): Promise<StatusPage[]>;
  remove(organizationId: string, id: string): Promise<boolean>;
  /** By display order; equal orders by when they were attached (SQLite) or by monitor id (PostgreSQL). */
  monitors(pageId: string): Promise<PageMonitor[]>;
  /** Attaches the monitor, or changes how the page shows it. */
  attach(pageId: string, monitor: PageMonitor): Promise<void>;
  detach(pageId: string, monitorId: string): Promise<boolean>;
  /** By display order, then in the order they were added. */
  components(pageId: string): Promise<PageComponent[]>;
  insertComponent(component: PageComponent): Promise<void>;
  removeComponent(pageId: string, id: string): Promise<boolean>;
}
