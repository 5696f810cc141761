import type { TxHandle } from "../db/db.tx.ts";
import { bodyProblems } from "../shared/body-schema.ts";
import { isoAt } from "../shared/clock.ts";
import type { FieldErrors } from "../shared/errors.ts";
import type { IncidentsRepo } from "./incidents.repo.ts";
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

export interface IncidentsDeps extends StatusPagesDeps {
  incidents: IncidentsRepo;
  /** The mails subscribers are owed for an update, written in its transaction (or none). */
  mails?: {
    owe(tx: TxHandle, page: StatusPage, incident: Incident, update: IncidentUpdate): number;
    /** After the commit: the outbox sends them at once. */
    wake(): void;
  };
}

/** Writes an update with the mails it owes; wakes the outbox once it is committed. */
function commitUpdate(
  page: StatusPage,
  incident: Incident,
  update: IncidentUpdate,
  deps: IncidentsDeps,
  write: () => void,
): void {
  const owed = deps.tx((tx) => {
    write();
    return deps.mails?.owe(tx, page, incident, update) ?? 0;
  });
  if (owed > 0) deps.mails?.wake();
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
  const page = requirePage(organizationId, pageId, deps);
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
  commitUpdate(page, incident, first, deps, () => {
    deps.incidents.insert(incident);
    deps.incidents.addUpdate(incident, first);
  });
  deps.pageChanged(page);
  return incident;
}

function requireIncident(pageId: string, id: string, deps: IncidentsDeps): Incident {
  const incident = deps.incidents.find(pageId, id);
  if (!incident) throw statusPageErrors.notFound();
  return incident;
}

/** Posts an update: the incident takes its status (investigating → … → resolved). */
export function postUpdate(
  organizationId: string,
  pageId: string,
  incidentId: string,
  body: unknown,
  deps: IncidentsDeps,
): Incident {
  const page = requirePage(organizationId, pageId, deps);
  const incident = requireIncident(page.id, incidentId, deps);
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
  commitUpdate(page, updated, update, deps, () => deps.incidents.addUpdate(updated, update));
  deps.pageChanged(page);
  return updated;
}

export function listIncidents(organizationId: string, pageId: string, deps: IncidentsDeps) {
  return deps.incidents.list(requirePage(organizationId, pageId, deps).id);
}

export function deleteIncident(
  organizationId: string,
  pageId: string,
  incidentId: string,
  deps: IncidentsDeps,
): void {
  const page = requirePage(organizationId, pageId, deps);
  if (!deps.incidents.remove(page.id, incidentId)) throw statusPageErrors.notFound();
  deps.pageChanged(page);
}
