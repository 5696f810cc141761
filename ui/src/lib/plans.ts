import type { Organization, Plan, PlanLimits } from "./types.ts";

/** The default quota table (decisions.md §3); a server may override cells and report `limits`. */
export const DEFAULT_LIMITS: Record<Plan, PlanLimits> = {
  free: {
    debug_endpoints: 3,
    retention_days: 7,
    realtime: false,
    api_keys: false,
    capture_rate_per_second: 10,
    capture_burst: 20,
  },
  team: {
    debug_endpoints: 10,
    retention_days: 30,
    realtime: true,
    api_keys: true,
    capture_rate_per_second: 100,
    capture_burst: 200,
  },
  enterprise: {
    debug_endpoints: null,
    retention_days: 90,
    realtime: true,
    api_keys: true,
    capture_rate_per_second: 1000,
    capture_burst: 2000,
  },
};

/** The organization's effective limits: what the server reports, else the plan's defaults. */
export function limitsOf(org: Pick<Organization, "plan" | "limits">): PlanLimits {
  return { ...(DEFAULT_LIMITS[org.plan] ?? DEFAULT_LIMITS.free), ...org.limits };
}

export const PLAN_LABEL: Record<Plan, string> = {
  free: "Free",
  team: "Team",
  enterprise: "Enterprise",
};

/** "2 of 3 endpoints used" / "5 endpoints (unlimited)"; `reached` when no more can be made. */
export function endpointUsage(count: number, limit: number | null) {
  if (limit === null)
    return { text: `${count} endpoint${count === 1 ? "" : "s"} (no limit)`, reached: false };
  return { text: `${count} of ${limit} endpoints used`, reached: count >= limit };
}
