import type { AppDeps } from "../deps.ts";
import { createRetentionRepo } from "./retention.repo.ts";
import { sweepRetention } from "./retention.service.ts";

/** The sweep's job name in `deps.scheduler` (tests run it by name). */
export const RETENTION_JOB = "retention.sweep";
/** Hourly, at minute 0; it also runs once at start. */
const RETENTION_PATTERN = "0 * * * *";

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Registers the retention sweep (decisions.md §11) with the app's scheduler. */
export function scheduleRetention(deps: AppDeps): void {
  const logger = deps.logger.child({ scope: "retention" });
  const repo = createRetentionRepo(deps.db.sqlite);
  const sweep = async () => {
    const report = await sweepRetention({
      repo,
      clock: deps.clock,
      plans: deps.config.plans,
      yieldTurn: nextTurn,
      onEndpointRemoved: (endpointId) =>
        deps.bus.publish("endpoint.deleted", { endpointId, organizationId: null }),
    });
    if (report.requestsDeleted > 0 || report.endpointsDeleted > 0) {
      logger.info("retention sweep", {
        requests_deleted: report.requestsDeleted,
        endpoints_deleted: report.endpointsDeleted,
      });
    }
    return report;
  };
  deps.scheduler.every(RETENTION_JOB, RETENTION_PATTERN, sweep, { runNow: true });
}
