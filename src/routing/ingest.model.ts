import type { RequestView } from "../shared/field-path.ts";
import type { Bridge } from "./bridges.repo.ts";
import type { Destination } from "./destinations.model.ts";
import type { EventStatus } from "./events.repo.ts";
import type { CompiledFilters, FilterRejection } from "./filters.model.ts";
import type { Source } from "./sources.model.ts";

/** A destination ready for the hot path: its filters compiled once. */
export interface RoutedDestination {
  destination: Destination;
  matches: CompiledFilters;
  /** Which term of its filters a request fails (built on first use: filtered requests only). */
  explain?(request: RequestView): FilterRejection | null;
}

/** Why a destination did not take a filtered event (stored with the event). */
export interface DestinationRejection extends FilterRejection {
  destinationId: string;
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

/**
 * Arrays and objects a body may nest, one in another, and still be read as JSON. Deeper is
 * opaque text (filters find no `body.` field, dedup keys hash the raw text): whatever walks a
 * parsed body recursively stays far from the stack's end, and a hostile body is no 5xx.
 */
export const JSON_DEPTH_MAX = 512;

function parseJsonBody(bytes: Uint8Array): unknown {
  if (bytes.length === 0) return undefined;
  if (nestsDeeperThan(bytes, JSON_DEPTH_MAX)) return undefined;
  try {
    return JSON.parse(decoder.decode(bytes));
  } catch {
    return undefined;
  }
}

/** True when the JSON text in `bytes` opens more than `limit` arrays or objects at once. */
export function nestsDeeperThan(bytes: Uint8Array, limit: number): boolean {
  // Deeper needs more than `limit` opening brackets; counting them is a native search, far
  // cheaper than the walk below that most bodies (a few dozen brackets) never need.
  if (bytes.length <= limit) return false;
  if (occurrences(bytes, 0x5b, limit) + occurrences(bytes, 0x7b, limit) <= limit) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === 0x5c)
        i++; // the escaped character, whatever it is
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      depth++;
      if (depth > limit) return true;
    } else if (byte === 0x5d || byte === 0x7d) depth--;
  }
  return false;
}

/** How often `byte` occurs in `bytes`, counted up to just past `limit`. */
function occurrences(bytes: Uint8Array, byte: number, limit: number): number {
  let count = 0;
  for (
    let at = bytes.indexOf(byte);
    at !== -1 && count <= limit;
    at = bytes.indexOf(byte, at + 1)
  ) {
    count++;
  }
  return count;
}

/** What routing decided for one request: the bridges it went through, the deliveries, the status. */
export interface Routing {
  /** The event's bridges (see `routeRequest`); the first is the one the event names. */
  bridgeIds: string[];
  destinations: Destination[];
  status: EventStatus;
  /** For a `filtered` event: the failing filter term of each destination of its active bridges. */
  filteredBy?: DestinationRejection[];
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
 * bridges that filtered it (`filtered`, with each destination's reason), or, with no active
 * bridge, the paused ones (`paused`); a source with no bridge at all leaves it `unrouted`.
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
  if (active.length > 0) {
    return {
      bridgeIds: active,
      destinations,
      status: "filtered",
      filteredBy: whyFiltered(plan, view),
    };
  }
  if (paused.length > 0) return { bridgeIds: paused, destinations, status: "paused" };
  return { bridgeIds: [], destinations, status: "unrouted" };
}

/** The reasons of a request no destination took: worked out only once it is known filtered. */
function whyFiltered(plan: RoutePlan, view: RequestView): DestinationRejection[] {
  const reasons: DestinationRejection[] = [];
  for (const { bridge, destinations } of plan.bridges) {
    if (bridge.status === "paused") continue;
    for (const { destination, explain } of destinations) {
      const rejection = explain?.(view);
      if (rejection) reasons.push({ destinationId: destination.id, ...rejection });
    }
  }
  return reasons;
}
