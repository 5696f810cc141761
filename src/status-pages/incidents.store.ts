import type { Incident, IncidentUpdate } from "./status-pages.model.ts";

/**
 * A page's incidents with their updates (oldest update first), on SQLite or PostgreSQL; every
 * read and write is by page, so a page id from another organization reaches nothing.
 */
export interface IncidentsStore {
  insert(incident: Incident): Promise<void>;
  /** Stores the update and the incident's new status in one transaction. */
  addUpdate(incident: Incident, update: IncidentUpdate): Promise<void>;
  find(pageId: string, id: string): Promise<Incident | null>;
  /** Every incident of the page, newest first. */
  list(pageId: string): Promise<Incident[]>;
  /** Open incidents, and those resolved or opened since `sinceIso`; newest first. */
  recent(pageId: string, sinceIso: string): Promise<Incident[]>;
  /** False when the page has no such incident. */
  remove(pageId: string, id: string): Promise<boolean>;
}
