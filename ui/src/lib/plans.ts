import type { Plan } from "./types.ts";

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
