/** The plans an organization can be on (decisions.md §3). */
export const PLANS = ["free", "team", "enterprise"] as const;
export type Plan = (typeof PLANS)[number];

/** What an organization's plan allows (decisions.md §3). `null` means unlimited. */
export interface PlanQuota {
  debug_endpoints: number | null;
  retention_days: number;
  realtime: boolean;
  /** Actions per endpoint; 0 means automations are not on the plan. */
  actions_per_endpoint: number;
  capture_rate_per_second: number;
  capture_burst: number;
  api_keys: boolean;
  /**
   * MiB of event bodies an organization may store (within its retention); past it ingest
   * answers 429 `event_quota_exceeded`. `null` means unlimited.
   */
  event_storage_mb: number | null;
  /** Uptime monitors per organization (decisions.md §13). */
  monitors: number | null;
  /** Email subscribers per status page. */
  status_page_subscribers: number | null;
}

export type PlanTable = Record<Plan, PlanQuota>;

/** The quota table of decisions.md §3; `weir.toml` may override any cell under `[plans.<plan>]`. */
export const DEFAULT_PLANS: PlanTable = {
  free: {
    debug_endpoints: 3,
    retention_days: 7,
    realtime: false,
    actions_per_endpoint: 0,
    capture_rate_per_second: 10,
    capture_burst: 20,
    api_keys: false,
    event_storage_mb: 256,
    monitors: 5,
    status_page_subscribers: 100,
  },
  team: {
    debug_endpoints: 10,
    retention_days: 30,
    realtime: true,
    actions_per_endpoint: 10,
    capture_rate_per_second: 100,
    capture_burst: 200,
    api_keys: true,
    event_storage_mb: 5120,
    monitors: 50,
    status_page_subscribers: 5000,
  },
  enterprise: {
    debug_endpoints: null,
    retention_days: 90,
    realtime: true,
    actions_per_endpoint: 50,
    capture_rate_per_second: 1000,
    capture_burst: 2000,
    api_keys: true,
    event_storage_mb: null,
    monitors: null,
    status_page_subscribers: null,
  },
};

const PLAN_NAMES = Object.keys(DEFAULT_PLANS) as Plan[];
const NULLABLE: ReadonlySet<string> = new Set([
  "debug_endpoints",
  "event_storage_mb",
  "monitors",
  "status_page_subscribers",
]);

/**
 * Reads plan overrides (a TOML table `[plans.team]` or JSON text in `WEIR_PLANS`) onto the
 * defaults; throws naming the first bad cell. Unknown plans or fields are refused, not ignored.
 */
export function parsePlanTable(raw: unknown): PlanTable {
  const overrides = typeof raw === "string" ? parseJsonObject(raw) : raw;
  if (!isRecord(overrides)) throw new Error("must be a table of plans");
  const table = structuredClone(DEFAULT_PLANS);
  for (const [plan, cells] of Object.entries(overrides)) {
    if (!PLAN_NAMES.includes(plan as Plan)) throw new Error(`unknown plan "${plan}"`);
    if (!isRecord(cells)) throw new Error(`plans.${plan} must be a table`);
    for (const [field, value] of Object.entries(cells)) {
      setCell(table[plan as Plan], `${plan}.${field}`, field, value);
    }
  }
  return table;
}

function setCell(quota: PlanQuota, label: string, field: string, value: unknown): void {
  if (!(field in quota)) throw new Error(`unknown plan setting "${label}"`);
  const current = quota[field as keyof PlanQuota];
  const ok =
    typeof current === "boolean"
      ? typeof value === "boolean"
      : (Number.isInteger(value) && (value as number) >= 0) ||
        ((value === null || value === -1) && NULLABLE.has(field));
  if (!ok) throw new Error(`plans.${label} has an invalid value ${JSON.stringify(value)}`);
  (quota as unknown as Record<string, unknown>)[field] = value === -1 ? null : value;
}

function parseJsonObject(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error('must be JSON such as {"team":{"debug_endpoints":20}}');
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
