import { type GenericPage, genericPage, type PageRequest, pageInfo } from "../db/db.pagination.ts";
import { type Clock, isoAt } from "../shared/clock.ts";
import { AppError } from "../shared/errors.ts";
import type { Ids } from "../shared/ids.ts";
import type { Plan, PlanTable } from "../shared/plans.ts";
import { checkParent } from "./dependencies.service.ts";
import { type Monitor, nextSlotAfter, phaseOf, pushGraceMs } from "./monitors.model.ts";
import { type MonitorView, monitorView } from "./monitors.present.ts";
import {
  parseReportQuery,
  type ReportFormat,
  type SlaReport,
  slaReport,
} from "./monitors.report.ts";
import type { MonitorsStore } from "./monitors.store.ts";
import {
  fieldsOfDraft,
  type MonitorDraft,
  type UrlProblem,
  validateMonitor,
} from "./monitors.validate.ts";

export interface MonitorsDeps {
  store: MonitorsStore;
  clock: Clock;
  ids: Ids;
  plans: PlanTable;
  urlProblem: UrlProblem;
  /** A monitor became due sooner than the queue knew: claim now. */
  wake(): void;
  inMaintenance(monitorId: string, at: Date): boolean;
}

/** The organization asking and its plan. */
export interface Tenant {
  organizationId: string;
  plan: Plan;
}

export const monitorErrors = {
  notFound: () => new AppError("not_found", 404),
  limitReached: () => new AppError("monitor_limit_reached", 403),
};

function view(monitor: Monitor, deps: MonitorsDeps, baseUrl: string): Promise<MonitorView> {
  const now = deps.clock.now();
  const maintenance = deps.inMaintenance(monitor.id, new Date(now));
  return monitorView(monitor, now, deps.store, baseUrl, maintenance);
}

/**
 * When a monitor is first due: a new probe monitor at once (its status leaves `pending`
 * without waiting an interval), a push monitor once its first push is overdue.
 */
function firstDue(draft: MonitorDraft, now: number): number {
  if (draft.type === "push")
    return now + draft.intervalSeconds * 1000 + pushGraceMs(draft.intervalSeconds);
  return now;
}

/**
 * Creates a monitor; 422 on bad fields, 403 `monitor_limit_reached` past the plan's quota. An
 * import may hand a push monitor the token its senders already use (`pushToken`, checked by it).
 */
export async function createMonitor(
  tenant: Tenant,
  body: unknown,
  baseUrl: string,
  deps: MonitorsDeps,
  options: { pushToken?: string } = {},
): Promise<MonitorView> {
  const draft = validateMonitor(body, null, deps.urlProblem);
  await checkParent(tenant.organizationId, null, draft.parentId, deps.store);
  const now = deps.clock.now();
  const id = deps.ids.uuid();
  const at = isoAt(now);
  const monitor: Monitor = {
    ...draft,
    id,
    organizationId: tenant.organizationId,
    pushToken: draft.type === "push" ? (options.pushToken ?? deps.ids.base62(32)) : null,
    state: "pending",
    consecutiveFailures: 0,
    phaseMs: phaseOf(id, draft.intervalSeconds),
    nextCheckAt: firstDue(draft, now),
    lastCheckedAt: null,
    lastResponseMs: null,
    checksUp: 0,
    checksDown: 0,
    checksDegraded: 0,
    createdAt: at,
    updatedAt: at,
  };
  const limit = deps.plans[tenant.plan].monitors;
  if ((await deps.store.insertWithinLimit(monitor, limit)) === "limit_reached") {
    throw monitorErrors.limitReached();
  }
  deps.wake();
  return view(monitor, deps, baseUrl);
}

export async function requireMonitor(
  organizationId: string,
  id: string,
  deps: Pick<MonitorsDeps, "store">,
): Promise<Monitor> {
  const monitor = await deps.store.find(organizationId, id);
  if (!monitor) throw monitorErrors.notFound();
  return monitor;
}

export const getMonitor = async (tenant: Tenant, id: string, baseUrl: string, deps: MonitorsDeps) =>
  view(await requireMonitor(tenant.organizationId, id, deps), deps, baseUrl);

export async function listMonitors(
  tenant: Tenant,
  page: PageRequest,
  baseUrl: string,
  deps: MonitorsDeps,
): Promise<GenericPage<MonitorView>> {
  const rows = await deps.store.page(tenant.organizationId, page.pageSize, page.offset);
  const info = pageInfo(page, await deps.store.count(tenant.organizationId));
  const views: MonitorView[] = [];
  for (const monitor of rows) views.push(await view(monitor, deps, baseUrl));
  return genericPage(views, info);
}

/**
 * Lays `body` over the monitor's fields (PUT and PATCH alike, `{paused}` included) and saves
 * it. A changed interval or an unpause puts the monitor back on its phase from now.
 */
export async function updateMonitor(
  tenant: Tenant,
  id: string,
  body: unknown,
  baseUrl: string,
  deps: MonitorsDeps,
): Promise<MonitorView> {
  const current = await requireMonitor(tenant.organizationId, id, deps);
  const draft = validateMonitor(body, fieldsOfDraft(current), deps.urlProblem);
  await checkParent(tenant.organizationId, id, draft.parentId, deps.store);
  const now = deps.clock.now();
  const phaseMs = phaseOf(id, draft.intervalSeconds);
  const retimed =
    draft.intervalSeconds !== current.intervalSeconds ||
    draft.type !== current.type ||
    (current.paused && !draft.paused);
  let nextCheckAt = current.nextCheckAt;
  if (retimed && draft.type !== "push" && current.lastCheckedAt === null) {
    // Never checked yet (created paused): its first check is now, as for a new monitor.
    nextCheckAt = now;
  } else if (retimed) {
    nextCheckAt =
      draft.type === "push"
        ? now + draft.intervalSeconds * 1000 + pushGraceMs(draft.intervalSeconds)
        : nextSlotAfter(now, phaseMs, draft.intervalSeconds);
  }
  // A monitor that becomes a push monitor gets its token then; one that stops being one drops it.
  const pushToken = draft.type === "push" ? (current.pushToken ?? deps.ids.base62(32)) : null;
  await deps.store.update(tenant.organizationId, id, {
    ...draft,
    phaseMs,
    nextCheckAt,
    pushToken,
    updatedAt: isoAt(now),
  });
  if (retimed) deps.wake();
  return view(await requireMonitor(tenant.organizationId, id, deps), deps, baseUrl);
}

/** A monitor's SLA report over whole UTC days, from its daily buckets alone. */
export async function monitorReport(
  tenant: Tenant,
  id: string,
  query: { from?: string; to?: string; format?: string },
  deps: MonitorsDeps,
): Promise<{ report: SlaReport; format: ReportFormat; monitorId: string }> {
  const monitor = await requireMonitor(tenant.organizationId, id, deps);
  const range = parseReportQuery(query, deps.clock.now());
  const buckets = await deps.store.dailyRange(monitor.id, range.from, range.to);
  return {
    report: slaReport(range, buckets, monitor.intervalSeconds),
    format: range.format,
    monitorId: monitor.id,
  };
}

export async function deleteMonitor(tenant: Tenant, id: string, deps: MonitorsDeps) {
  if (!(await deps.store.remove(tenant.organizationId, id))) throw monitorErrors.notFound();
}

/** The push monitor a push URL's token names; 404 for an unknown token. */
export async function monitorForPush(
  token: string,
  deps: Pick<MonitorsDeps, "store">,
): Promise<Monitor> {
  const monitor = await deps.store.findByPushToken(token);
  if (!monitor) throw monitorErrors.notFound();
  return monitor;
}
