import { bodyProblems } from "../shared/body-schema.ts";
import { notFound, validationFailed } from "../shared/errors.ts";
import type { StoredEvent } from "./events.repo.ts";
import type { EventsStore } from "./events.store.ts";
import {
  compileFilterExplainer,
  compileFilters,
  FilterBudgetExceeded,
  type FilterRejection,
  type FilterSaveLimits,
  meterOf,
  refill,
  validateFilters,
} from "./filters.model.ts";
import { requestView } from "./ingest.model.ts";
import { FilterCheckBody } from "./routing.bodies.ts";

/** At most this many events are tried per check: a typing user asks again every few keystrokes. */
export const FILTER_CHECK_MAX_EVENTS = 20;
const DEFAULT_EVENTS = 5;

export interface FilterCheckDeps {
  events: Pick<EventsStore, "find" | "page">;
  /** Throws the 404 of a source the caller's organization does not own. */
  requireSource(organizationId: string, sourceId: string): Promise<unknown>;
  limits: FilterSaveLimits;
  /** The ingest's per-event budget (`filter_budget`, `filter_budget_ms`). */
  budget: { comparisons: number; ms: number };
}

export interface FilterCheckResult {
  event_id: string;
  created_at: string;
  matched: boolean;
  /** A rejected event: the first filter object and term it failed (as filtered events show). */
  failed: FilterRejection | null;
  /** The evaluation ran out of the ingest's filter budget (ingest fails such an event). */
  over_budget?: true;
}

/**
 * Validates a draft filter list exactly as saving a destination does and, when it is valid,
 * runs it through the ingest's evaluation against one event or a source's most recent ones
 * (decisions.md §8). Nothing is stored and no user code runs, so members may use it.
 */
export async function checkFilters(organizationId: string, body: unknown, deps: FilterCheckDeps) {
  const input = (body ?? {}) as Record<string, unknown>;
  const own = validateFilters(input.filters ?? [], deps.limits);
  const errors = bodyProblems(FilterCheckBody, body ?? {}, own);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  const events = await eventsToTry(organizationId, input, deps);
  const meter = meterOf(deps.budget.comparisons, deps.budget.ms);
  const matches = compileFilters(input.filters, meter);
  const explain = compileFilterExplainer(input.filters, meter);
  const results = events.map((event): FilterCheckResult => {
    const view = requestView(event);
    refill(meter, deps.budget.comparisons, deps.budget.ms);
    const base = { event_id: event.id, created_at: event.createdAt };
    try {
      if (matches(view)) return { ...base, matched: true, failed: null };
      refill(meter, deps.budget.comparisons, deps.budget.ms);
      return { ...base, matched: false, failed: explain(view) };
    } catch (error) {
      if (!(error instanceof FilterBudgetExceeded)) throw error;
      return { ...base, matched: false, failed: null, over_budget: true };
    }
  });
  return { valid: true as const, results };
}

/** The event named, or the source's newest ones (whole bodies: a list row's body is cut). */
async function eventsToTry(
  organizationId: string,
  input: Record<string, unknown>,
  deps: FilterCheckDeps,
): Promise<StoredEvent[]> {
  if (typeof input.event_id === "string") {
    const event = await deps.events.find(organizationId, input.event_id);
    if (!event) throw notFound();
    return [event];
  }
  if (typeof input.source_id !== "string") return [];
  await deps.requireSource(organizationId, input.source_id);
  const limit = typeof input.limit === "number" ? input.limit : DEFAULT_EVENTS;
  const { events } = await deps.events.page(
    organizationId,
    { sourceId: input.source_id },
    limit,
    0,
  );
  const whole = await Promise.all(
    events.map((listed) => deps.events.find(organizationId, listed.id)),
  );
  return whole.flatMap((event) => event ?? []);
}
