import type { MonitorChange } from "../alerts/alerts.model.ts";
import type {
  CheckRecord,
  CheckView,
  DailyBucket,
  RollupBucketView,
  RollupSums,
  StateEventView,
} from "./checks.repo.ts";
import type { HeldChild } from "./dependencies.repo.ts";
import type { Monitor, MonitorState } from "./monitors.model.ts";
import type { MonitorColumns, MonitorFigures } from "./monitors.repo.ts";

export type {
  CheckRecord,
  CheckView,
  DailyBucket,
  HeldChild,
  MonitorColumns,
  MonitorFigures,
  RollupBucketView,
  RollupSums,
  StateEventView,
};

/** What a check's transaction reads of its monitor before deciding (the row locked). */
export interface CheckState {
  state: MonitorState;
  failures: number;
  maintenanceFrom: MonitorState | null;
  /** The down alert held for the monitor's parent, if any. */
  heldAlertId: string | null;
  /** The parent's state; null without a parent. */
  parentState: MonitorState | null;
  /** When the monitor last went down (ISO), or null. */
  lastDownAt: string | null;
}

/** What a check writes, decided from its CheckState. */
export interface CheckDecision {
  record: Omit<CheckRecord, "organizationId">;
  /** Hold this down alert for the parent (its state change names the parent). */
  hold: { changeId: string; parentId: string } | null;
  /** Clear the monitor's own held alert. */
  releaseOwn: boolean;
  /** The monitor recovered from down: its children still down have their held alerts sent. */
  releaseChildren: boolean;
  /** The alerts the check sends itself (released children's come from `releasedAlerts`). */
  alerts: MonitorChange[];
}

/** One outcome to record: the store runs it as one unit. */
export interface CheckInput {
  monitorId: string;
  organizationId: string;
  /** The lease a scheduled check holds; nothing is written when the row is no longer its. */
  lease: number | null;
  decide(state: CheckState): CheckDecision;
  /** The alerts of the children whose held down alerts a recovery released. */
  releasedAlerts(children: HeldChild[]): MonitorChange[];
}

/** A due monitor leased to one worker until `lease` (epoch ms). */
export interface ClaimedMonitor {
  monitor: Monitor;
  lease: number;
}

/**
 * The monitors room's storage, one implementation per dialect. Every method is a whole unit:
 * a count-then-insert, a claim and a check's record run their own transaction inside the
 * implementation. Monitor reads and writes name the organization; reads by monitor id serve
 * callers that already checked it is the organization's.
 */
export interface MonitorsStore {
  /** Inserts the monitor unless the organization already has `limit` (null: no limit). */
  insertWithinLimit(monitor: Monitor, limit: number | null): Promise<"inserted" | "limit_reached">;
  find(organizationId: string, id: string): Promise<Monitor | null>;
  findById(id: string): Promise<Monitor | null>;
  findByPushToken(token: string): Promise<Monitor | null>;
  /** Newest first. */
  page(organizationId: string, limit: number, offset: number): Promise<Monitor[]>;
  count(organizationId: string): Promise<number>;
  update(organizationId: string, id: string, columns: MonitorColumns): Promise<void>;
  remove(organizationId: string, id: string): Promise<boolean>;
  /** Every monitor's figures for /metrics, by name. */
  figures(): Promise<MonitorFigures[]>;
  /** Moves slots missed by more than `slackMs` to their next phase slot; how many moved. */
  resumeOverdue(now: number, slackMs: number): Promise<number>;
  /** The organization's monitor's parent id; undefined when there is no such monitor. */
  parentOf(organizationId: string, id: string): Promise<string | null | undefined>;

  /**
   * Leases up to `limit` due, unpaused, unleased monitors in due order, each until its own
   * timeout and `slackMs` have passed. Several nodes may claim at once: a due check goes to one
   * of them only.
   */
  claimDue(now: number, slackMs: number, limit: number): Promise<ClaimedMonitor[]>;
  /**
   * Writes a check with its buckets, the monitor's state, its state change, holds and releases,
   * and tells its alerts, all in one transaction. Null when the monitor is gone or the lease
   * was lost (nothing written).
   */
  recordCheck(input: CheckInput): Promise<CheckDecision | null>;

  /** Newest first. */
  checksPage(monitorId: string, limit: number, offset: number): Promise<CheckView[]>;
  checksCount(monitorId: string): Promise<number>;
  /** The latest 500 state changes, newest first. */
  events(monitorId: string): Promise<StateEventView[]>;
  sums(monitorId: string, period: "hour" | "day", from: number): Promise<RollupSums>;
  hourlyHistogram(
    monitorId: string,
    from: number,
  ): Promise<{ histogram: number[]; slowest: number | null }>;
  /** Daily buckets since `from`, oldest first. */
  dailyBuckets(monitorId: string, from: number): Promise<DailyBucket[]>;
  /** Daily buckets starting in [from, to], oldest first. */
  dailyRange(monitorId: string, from: number, to: number): Promise<DailyBucket[]>;
  /** One period's buckets since `from`, oldest first. */
  buckets(monitorId: string, period: "hour" | "day", from: number): Promise<RollupBucketView[]>;
  /** Organizations that have monitors, with their plan. */
  tenants(): Promise<{ id: string; plan: string }[]>;
  deleteChecksBefore(organizationId: string, before: string, limit: number): Promise<number>;
  deleteBucketsBefore(period: "hour" | "day", before: number): Promise<number>;
}
