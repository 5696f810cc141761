import { bodyProblems } from "../shared/body-schema.ts";
import { isoAt } from "../shared/clock.ts";
import type { FieldErrors } from "../shared/errors.ts";
import type { IncidentsStore } from "./incidents.store.ts";
import { IncidentCreateBody, IncidentUpdateBody } from "./status-pages.bodies.ts";
import { failIf, statusPageErrors } from "./status-pages.errors.ts";
import type {
  Impact,
  Incident,
  IncidentStatus,
  IncidentUpdate,
  StatusPage,
} from "./status-pages.model.ts";
import { requirePage, type StatusPagesDeps } from "./status-pages.service.ts";

/** An incident's new update; `opening`: the incident is new and is written with it. */
export interface IncidentWrite {
  page: StatusPage;
  incident: Incident;
  update: IncidentUpdate;
  opening: boolean;
}

export interface IncidentsDeps extends StatusPagesDeps {
  incidents: IncidentsStore;
  /**
   * Writes the update (and a new incident) with the mails subscribers are owed for it, as one
   * unit, and has them sent once it is committed.
   */
  commitUpdate(write: IncidentWrite): Promise<void>;
}

type Raw = Record<string, unknown>;
const fieldsOf = (body: unknown): Raw =>
  typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Raw) : {};

/** `resolved` sets `resolved_at`; any other status after it reopens the incident. */
const resolvedAt = (status: IncidentStatus, at: string, before: string | null) =>
  status === "resolved" ? (before ?? at) : null;

/** Opens an incident on a page (decisions.md §15); its message is the first update. */
export async function createIncident(
  organizationId: string,
  pageId: string,
  body: unknown,
  deps: IncidentsDeps,
): Promise<Incident> {
  const page = await requirePage(organizationId, pageId, deps);
  const fields = fieldsOf(body);
  const own: FieldErrors = {};
  const monitorIds = Array.isArray(fields.monitor_ids) ? fields.monitor_ids : [];
  // Another organization's monitor is named like a missing one, so nothing is learnt of it.
  const unknown = [];
  for (const id of monitorIds) {
    if (typeof id !== "string" || !(await deps.reads.monitorSummary(organizationId, id))) {
      unknown.push(id);
    }
  }
  if (unknown.length > 0) own.monitor_ids = ["must name the organization's own monitors"];
  failIf(bodyProblems(IncidentCreateBody, fields, own));
  const at = isoAt(deps.clock.now());
  const status = fields.status as IncidentStatus;
  const first: IncidentUpdate = {
    id: deps.ids.uuid(),
    status,
    message: fields.message as string,
    createdAt: at,
  };
  const incident: Incident = {
    id: deps.ids.uuid(),
    statusPageId: page.id,
    title: fields.title as string,
    impact: fields.impact as Impact,
    status,
    monitorIds: [...new Set(monitorIds as string[])],
    updates: [first],
    createdAt: at,
    updatedAt: at,
    resolvedAt: resolvedAt(status, at, null),
  };
  await deps.commitUpdate({ page, incident, update: first, opening: true });
  deps.pageChanged(page);
  return incident;
}

async function requireIncident(pageId: string, id: string, deps: IncidentsDeps) {
  const incident = await deps.incidents.find(pageId, id);
  if (!incident) throw statusPageErrors.notFound();
  return incident;
}

/** Posts an update: the incident takes its status (investigating → … → resolved). */
export async function postUpdate(
  organizationId: string,
  pageId: string,
  incidentId: string,
  body: unknown,
  deps: IncidentsDeps,
): Promise<Incident> {
  const page = await requirePage(organizationId, pageId, deps);
  const incident = await requireIncident(page.id, incidentId, deps);
  const fields = fieldsOf(body);
  failIf(bodyProblems(IncidentUpdateBody, fields, {}));
  const at = isoAt(deps.clock.now());
  const update: IncidentUpdate = {
    id: deps.ids.uuid(),
    status: fields.status as IncidentStatus,
    message: fields.message as string,
    createdAt: at,
  };
  const updated: Incident = {
    ...incident,
    status: update.status,
    updates: [...incident.updates, update],
    updatedAt: at,
    resolvedAt: resolvedAt(update.status, at, incident.resolvedAt),
  };
  await deps.commitUpdate({ page, incident: updated, update, opening: false });
  deps.pageChanged(page);
  return updated;
}

export async function listIncidents(organizationId: string, pageId: string, deps: IncidentsDeps) {
  return deps.incidents.list((await requirePage(organizationId, pageId, deps)).id);
}

export async function deleteIncident(
  organizationId: string,
  pageId: string,
  incidentId: string,
  deps: IncidentsDeps,
): Promise<void> {
  const page = await requirePage(organizationId, pageId, deps);
  if (!(await deps.incidents.remove(page.id, incidentId))) throw statusPageErrors.notFound();
  deps.pageChanged(page);
}
