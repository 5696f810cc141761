import type { RequestView } from "../shared/field-path.ts";
import type { Bridge } from "./bridges.repo.ts";
import type { Destination } from "./destinations.model.ts";
import {
  type CompiledFilters,
  compileFilterExplainer,
  compileFilters,
  FilterBudgetExceeded,
  type FilterRejection,
  refill,
  unmetered,
} from "./filters.model.ts";
import { overBudget, type RoutePlan, type Routing, routeRequest } from "./ingest.model.ts";
import type { Source } from "./sources.model.ts";

/** What a plan is read from on SQLite: the repos' synchronous statements. */
export interface RouteReads {
  bridgesOfSource(sourceId: string): Bridge[];
  destinationsOf(bridgeIds: readonly string[]): Destination[];
}

/** The same reads through a store that answers promises (PostgreSQL). */
export interface RouteReadsAsync {
  bridgesOfSource(sourceId: string): Promise<Bridge[]>;
  destinationsOf(bridgeIds: readonly string[]): Promise<Destination[]>;
}

type Explainer = (view: RequestView) => FilterRejection | null;

/** Filter evaluation cost, for the benchmark and metrics. */
export interface FilterCost {
  evaluations: number;
  totalMicros: number;
  /** Events stored failed because their filters ran out of budget. */
  budgetExceeded: number;
}

export interface RoutePlansDeps {
  routesVersion(): number;
  /** Element comparisons one event's filters may make, all destinations together. */
  filterBudget?: number | undefined;
  /** The same budget's wall-clock ceiling, in ms. */
  filterBudgetMs?: number | undefined;
}

/**
 * Route plans per source, cached until the routes version moves; filters compile once per
 * destination version. On SQLite a plan is read without waiting (the ingest hot path stays
 * synchronous); on PostgreSQL the same plan is read through the stores.
 */
export function createRoutePlans(deps: RoutePlansDeps) {
  const cost: FilterCost = { evaluations: 0, totalMicros: 0, budgetExceeded: 0 };
  /** Every compiled filter charges this one meter; `route` refills it for each event. */
  const meter = unmetered();
  const plans = new Map<string, { version: number; plan: RoutePlan }>();
  const compiled = new Map<string, { updatedAt: string; matches: CompiledFilters }>();
  const explainers = new Map<string, { updatedAt: string; explain: Explainer }>();

  const matcherOf = (d: Destination): CompiledFilters => {
    const hit = compiled.get(d.id);
    if (hit && hit.updatedAt === d.updatedAt) return hit.matches;
    const matches = compileFilters(d.filters, meter);
    compiled.set(d.id, { updatedAt: d.updatedAt, matches });
    return matches;
  };

  const explainerOf = (d: Destination): Explainer => {
    const hit = explainers.get(d.id);
    if (hit && hit.updatedAt === d.updatedAt) return hit.explain;
    const explain = compileFilterExplainer(d.filters, meter);
    explainers.set(d.id, { updatedAt: d.updatedAt, explain });
    return explain;
  };

  const assemble = (
    source: Source,
    bridges: Bridge[],
    destinations: readonly Destination[],
  ): RoutePlan => ({
    source,
    bridges: bridges.map((bridge) => ({
      bridge,
      destinations: destinations
        .filter((d) => d.bridgeId === bridge.id)
        .map((destination) => ({
          destination,
          matches: matcherOf(destination),
          explain: (view: RequestView) => explainerOf(destination)(view),
        })),
    })),
  });

  const build = (source: Source, reads: RouteReads): RoutePlan => {
    const bridges = reads.bridgesOfSource(source.id);
    return assemble(source, bridges, reads.destinationsOf(bridges.map((b) => b.id)));
  };

  const keep = (key: string, version: number, plan: RoutePlan) => {
    const hit = plans.get(key);
    if (hit && hit.version !== version) plans.clear();
    plans.set(key, { version, plan });
    return plan;
  };

  const cached = (key: string, version: number) => {
    const hit = plans.get(key);
    return hit && hit.version === version ? hit.plan : null;
  };

  /**
   * Routes one event on a fresh filter budget shared by all its destinations: past it the event
   * is stored `failed` with the reason, and nothing is delivered.
   */
  const route = (plan: RoutePlan, view: RequestView): Routing => {
    const started = performance.now();
    refill(
      meter,
      deps.filterBudget ?? Number.POSITIVE_INFINITY,
      deps.filterBudgetMs ?? Number.POSITIVE_INFINITY,
    );
    let routing: Routing;
    try {
      routing = routeRequest(plan, view);
    } catch (error) {
      if (!(error instanceof FilterBudgetExceeded)) throw error;
      cost.budgetExceeded += 1;
      routing = overBudget(plan);
    }
    cost.totalMicros += (performance.now() - started) * 1000;
    cost.evaluations += 1;
    return routing;
  };

  return {
    route,
    cost: (): FilterCost => ({ ...cost }),
    clear: () => plans.clear(),
    /** A plan as the routes are now, uncached (a request routed again after a failed write). */
    build,
    /** The cached plan under `key`, or one read without waiting; null: no such source. */
    planFor(key: string, find: () => Source | null, reads: RouteReads): RoutePlan | null {
      const version = deps.routesVersion();
      const hit = cached(key, version);
      if (hit) return hit;
      const source = find();
      return source ? keep(key, version, build(source, reads)) : null;
    },
    /**
     * The same through a store. The version is taken before reading: a change during the reads
     * leaves a plan that the next request reads again.
     */
    async planForAsync(
      key: string,
      find: () => Promise<Source | null>,
      reads: RouteReadsAsync,
    ): Promise<RoutePlan | null> {
      const version = deps.routesVersion();
      const hit = cached(key, version);
      if (hit) return hit;
      const source = await find();
      if (!source) return null;
      const bridges = await reads.bridgesOfSource(source.id);
      const destinations = await reads.destinationsOf(bridges.map((b) => b.id));
      return keep(key, version, assemble(source, bridges, destinations));
    },
  };
}
