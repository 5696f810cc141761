import type { RequestView } from "../shared/field-path.ts";
import type { Bridge } from "./bridges.repo.ts";
import type { Destination } from "./destinations.model.ts";
import type { EventStatus } from "./events.repo.ts";
import type { CompiledFilters } from "./filters.model.ts";
import type { Source } from "./sources.model.ts";

/** A destination ready for the hot path: its filters compiled once. */
export interface RoutedDestination {
  destination: Destination;
  matches: CompiledFilters;
}

/** Where a source's ingests go, as cached between changes of its bridges. */
export interface RoutePlan {
  source: Source;
  bridges: { bridge: Bridge; destinations: RoutedDestination[] }[];
}

/** An ingested request as received (the raw material of an event). */
export interface IngestRequest {
  method: string;
  path: string;
  queryString: string;
  headers: Record<string, string>;
  rawHeaders: [string, string][];
  body: Uint8Array;
}

const decoder = new TextDecoder();

/**
 * The request as filters see it. The body is parsed as JSON when it is JSON (whatever the
 * content type claims); anything else gives `body.` paths nothing to find.
 */
export function requestView(request: IngestRequest): RequestView {
  return {
    body: parseJsonBody(request.body),
    headers: request.headers,
    // Most webhooks carry no query: skip building a parser for nothing.
    query: request.queryString ? Object.fromEntries(new URLSearchParams(request.queryString)) : {},
    path: {},
  };
}

function parseJsonBody(bytes: Uint8Array): unknown {
  if (bytes.length === 0) return undefined;
  try {
    return JSON.parse(decoder.decode(bytes));
  } catch {
    return undefined;
  }
}

/** What routing decided for one request: the bridges it went through, the deliveries, the status. */
export interface Routing {
  /** The event's bridges (see `routeRequest`); the first is the one the event names. */
  bridgeIds: string[];
  destinations: Destination[];
  status: EventStatus;
  /** Why the event failed before any delivery (only with status `failed`). */
  reason?: string;
}

/** The reason an event whose filters ran out of budget is stored with. */
export const FILTER_BUDGET_REASON = "filter budget exceeded";

/**
 * An event whose filters ran out of budget: failed, through the source's active bridges (so
 * listing a bridge's events shows it), and delivered nowhere.
 */
export function overBudget(plan: RoutePlan): Routing {
  const bridgeIds = plan.bridges
    .filter((b) => b.bridge.status !== "paused")
    .map((b) => b.bridge.id);
  return { bridgeIds, destinations: [], status: "failed", reason: FILTER_BUDGET_REASON };
}

/**
 * Picks the destinations of a request: every destination of an active bridge whose filters
 * match. The event goes through the bridges that matched it; when none did, through the active
 * bridges that filtered it (`filtered`), or, with no active bridge, the paused ones (`paused`).
 */
export function routeRequest(plan: RoutePlan, view: RequestView): Routing {
  const destinations: Destination[] = [];
  const matched: string[] = [];
  const active: string[] = [];
  const paused: string[] = [];
  for (const { bridge, destinations: routed } of plan.bridges) {
    if (bridge.status === "paused") {
      paused.push(bridge.id);
      continue;
    }
    active.push(bridge.id);
    const before = destinations.length;
    for (const { destination, matches } of routed)
      if (matches(view)) destinations.push(destination);
    if (destinations.length > before) matched.push(bridge.id);
  }
  if (destinations.length > 0) return { bridgeIds: matched, destinations, status: "pending" };
  if (active.length > 0 || paused.length === 0)
    return { bridgeIds: active, destinations, status: "filtered" };
  return { bridgeIds: paused, destinations, status: "paused" };
}
