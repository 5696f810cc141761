import { bodyProblems } from "../shared/body-schema.ts";
import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import type { FieldErrors } from "../shared/errors.ts";
import type { Ids } from "../shared/ids.ts";
import {
  AttachMonitorBody,
  ComponentBody,
  StatusPageFields,
  StatusPageUpdateFields,
} from "./status-pages.bodies.ts";
import { failIf, statusPageErrors } from "./status-pages.errors.ts";
import {
  DEFAULT_COLOR,
  isHttpUrl,
  type PageComponent,
  type PageGroup,
  type PageMonitor,
  type StatusPage,
} from "./status-pages.model.ts";
import type { StatusPagesReads } from "./status-pages.ports.ts";
import type { PageWriteOutcome, StatusPagesStore } from "./status-pages.store.ts";
import { SMTP_NOT_CONFIGURED } from "./status-pages.subscribers.model.ts";

export interface StatusPagesDeps {
  repo: StatusPagesStore;
  reads: StatusPagesReads;
  clock: Clock;
  ids: Ids;
  /** Whether the operator set the mail settings: subscribers need them. */
  smtpConfigured: boolean;
  /** A page's render changed: its cached answers go. */
  pageChanged(page: StatusPage): void;
}

/** Who asks, and the host the instance itself answers on (a custom domain may not take it). */
export interface Caller {
  organizationId: string;
  instanceHost: string | null;
}

type Raw = Record<string, unknown>;
const isRecord = (value: unknown): value is Raw =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `{status_page: {...}}` as the contract shows; a bare object is read the same. */
function pageFieldsOf(body: unknown): Raw {
  if (!isRecord(body)) return {};
  const wrapped = body.status_page;
  if (wrapped === undefined) return body;
  return isRecord(wrapped) ? wrapped : {};
}

/** What a schema cannot know: URL schemes, the instance's own host, group names in use. */
function ownChecks(
  fields: Raw,
  caller: Caller & { smtpConfigured: boolean },
  groups: PageGroup[],
): FieldErrors {
  const errors: FieldErrors = {};
  const logo = fields.logo_url;
  if (typeof logo === "string" && !isHttpUrl(logo)) errors.logo_url = ["must be an http(s) URL"];
  const domain = fields.custom_domain;
  if (typeof domain === "string" && caller.instanceHost === domain.toLowerCase()) {
    errors.custom_domain = ["is the address of this Weir itself"];
  }
  if (fields.allow_subscribers === true && !caller.smtpConfigured) {
    errors.allow_subscribers = [SMTP_NOT_CONFIGURED];
  }
  const names = groups.map((group) => group.name);
  if (new Set(names).size !== names.length) errors.groups = ["names must be unique"];
  return errors;
}

async function save(write: Promise<PageWriteOutcome>): Promise<void> {
  const outcome = await write;
  if (outcome === "slug_taken") throw statusPageErrors.slugTaken();
  if (outcome === "domain_taken") throw statusPageErrors.domainTaken();
}

const optional = <T>(value: unknown, fallback: T): T =>
  value === undefined ? fallback : (value as T);

export async function createPage(
  caller: Caller,
  body: unknown,
  deps: StatusPagesDeps,
): Promise<StatusPage> {
  const fields = pageFieldsOf(body);
  const groups = optional<PageGroup[]>(fields.groups, []);
  failIf(
    bodyProblems(
      StatusPageFields,
      fields,
      ownChecks(fields, { ...caller, smtpConfigured: deps.smtpConfigured }, groups),
    ),
  );
  const at = isoAt(deps.clock.now());
  const page: StatusPage = {
    id: deps.ids.uuid(),
    organizationId: caller.organizationId,
    name: fields.name as string,
    slug: fields.slug as string,
    description: optional(fields.description, null),
    logoUrl: optional(fields.logo_url, null),
    primaryColor: optional(fields.primary_color, DEFAULT_COLOR),
    showServiceBranding: optional(fields.show_service_branding, true),
    allowSubscribers: optional(fields.allow_subscribers, false),
    customDomain: optional<string | null>(fields.custom_domain, null)?.toLowerCase() ?? null,
    groups,
    createdAt: at,
    updatedAt: at,
  };
  await save(deps.repo.insert(page));
  deps.pageChanged(page);
  return page;
}

export async function requirePage(
  organizationId: string,
  id: string,
  deps: StatusPagesDeps,
): Promise<StatusPage> {
  const page = await deps.repo.find(organizationId, id);
  if (!page) throw statusPageErrors.notFound();
  return page;
}

/** PUT: the fields sent replace theirs; the others keep their value. */
export async function updatePage(caller: Caller, id: string, body: unknown, deps: StatusPagesDeps) {
  const page = await requirePage(caller.organizationId, id, deps);
  const fields = pageFieldsOf(body);
  const groups = optional(fields.groups, page.groups);
  failIf(
    bodyProblems(
      StatusPageUpdateFields,
      fields,
      ownChecks(fields, { ...caller, smtpConfigured: deps.smtpConfigured }, groups),
    ),
  );
  const domain = optional<string | null>(fields.custom_domain, page.customDomain);
  const updated: StatusPage = {
    ...page,
    name: optional(fields.name, page.name),
    slug: optional(fields.slug, page.slug),
    description: optional(fields.description, page.description),
    logoUrl: optional(fields.logo_url, page.logoUrl),
    primaryColor: optional(fields.primary_color, page.primaryColor),
    showServiceBranding: optional(fields.show_service_branding, page.showServiceBranding),
    allowSubscribers: optional(fields.allow_subscribers, page.allowSubscribers),
    customDomain: domain?.toLowerCase() ?? null,
    groups,
    updatedAt: isoAt(deps.clock.now()),
  };
  await save(deps.repo.update(updated));
  // The old slug and domain stop answering at once, as the new ones start.
  deps.pageChanged(page);
  deps.pageChanged(updated);
  return updated;
}

export async function deletePage(
  organizationId: string,
  id: string,
  deps: StatusPagesDeps,
): Promise<void> {
  const page = await requirePage(organizationId, id, deps);
  await deps.repo.remove(organizationId, id);
  deps.pageChanged(page);
}

function displayOf(
  body: unknown,
  schema: typeof AttachMonitorBody | typeof ComponentBody,
  own: FieldErrors,
) {
  const fields = isRecord(body) ? body : {};
  failIf(bodyProblems(schema, fields, own));
  return {
    displayName: optional<string | null>(fields.display_name, null),
    displayOrder: optional(fields.display_order, 0),
    group: optional<string | null>(fields.group, null),
  };
}

function groupProblem(page: StatusPage, body: unknown): FieldErrors {
  const group = isRecord(body) ? body.group : undefined;
  if (typeof group !== "string" || page.groups.some((g) => g.name === group)) return {};
  return { group: ["must name one of the page's groups"] };
}

/** Attaches one of the organization's monitors (again: updates its display settings). */
export async function attachMonitor(
  organizationId: string,
  pageId: string,
  monitorId: string,
  body: unknown,
  deps: StatusPagesDeps,
): Promise<PageMonitor> {
  const page = await requirePage(organizationId, pageId, deps);
  // Another organization's monitor is as unknown as a missing one.
  if (!(await deps.reads.monitorSummary(organizationId, monitorId))) {
    throw statusPageErrors.notFound();
  }
  const monitor = { monitorId, ...displayOf(body, AttachMonitorBody, groupProblem(page, body)) };
  await deps.repo.attach(page.id, monitor);
  deps.pageChanged(page);
  return monitor;
}

export async function detachMonitor(
  organizationId: string,
  pageId: string,
  monitorId: string,
  deps: StatusPagesDeps,
) {
  const page = await requirePage(organizationId, pageId, deps);
  if (!(await deps.repo.detach(page.id, monitorId))) throw statusPageErrors.notFound();
  deps.pageChanged(page);
}

/** Adds a bridge or destination of the organization; anything else is a 404 (decisions.md §15). */
export async function addComponent(
  organizationId: string,
  pageId: string,
  body: unknown,
  deps: StatusPagesDeps,
): Promise<PageComponent> {
  const page = await requirePage(organizationId, pageId, deps);
  const fields = isRecord(body) ? body : {};
  const own = groupProblem(page, body);
  const bridge = typeof fields.bridge_id === "string";
  const destination = typeof fields.destination_id === "string";
  if (bridge === destination) own.bridge_id = ["give exactly one of bridge_id and destination_id"];
  const display = displayOf(body, ComponentBody, own);
  const ref = bridge
    ? { bridge_id: fields.bridge_id as string }
    : { destination_id: fields.destination_id as string };
  const health = (await deps.reads.deliveryHealth?.(organizationId, ref, 1)) ?? null;
  if (!health) throw statusPageErrors.notFound();
  const component: PageComponent = {
    id: deps.ids.uuid(),
    statusPageId: page.id,
    kind: bridge ? "bridge" : "destination",
    targetId: bridge ? (fields.bridge_id as string) : (fields.destination_id as string),
    ...display,
  };
  await deps.repo.insertComponent(component);
  deps.pageChanged(page);
  return component;
}

export async function removeComponent(
  organizationId: string,
  pageId: string,
  id: string,
  deps: StatusPagesDeps,
) {
  const page = await requirePage(organizationId, pageId, deps);
  if (!(await deps.repo.removeComponent(page.id, id))) throw statusPageErrors.notFound();
  deps.pageChanged(page);
}

/** What the API shows of a page: its settings, its monitors with their current state. */
export async function shownOf(page: StatusPage, deps: StatusPagesDeps) {
  const monitors = [];
  for (const m of await deps.repo.monitors(page.id)) {
    const summary = await deps.reads.monitorSummary(page.organizationId, m.monitorId);
    monitors.push({ ...m, status: summary?.status ?? "pending" });
  }
  return { monitors, components: await deps.repo.components(page.id) };
}
