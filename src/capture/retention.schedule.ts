import type { AppDeps } from "../deps.ts";
import type { RoomJob } from "../room.ts";
import type { CaptureStore } from "./capture.store.ts";
import { type ExpiredEndpoints, sweepRetention } from "./retention.service.ts";

/** The sweep's job name in `deps.scheduler` (tests run it by name). */
export const RETENTION_JOB = "retention.sweep";
/** Hourly, at minute 0; it also runs once at start. */
const RETENTION_PATTERN = "0 * * * *";

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The retention sweep (decisions.md §11), as a job of the capture room. */
export function retentionJob(
  deps: Pick<AppDeps, "clock" | "logger" | "bus" | "config">,
  store: Pick<CaptureStore, "endpointsAfter" | "deleteRequestsBefore">,
  expired: ExpiredEndpoints,
  /** Told after a sweep deleted requests (the search index's merge is woken). */
  onDeleted: () => void = () => {},
): RoomJob {
  const logger = deps.logger.child({ scope: "retention" });
  const sweep = async () => {
    const report = await sweepRetention({
      repo: store,
      expired,
      clock: deps.clock,
      plans: deps.config.plans,
      yieldTurn: nextTurn,
      // Its requests are drained from here on: the capture room's drain hears this too.
      onEndpointRemoved: (endpointId) =>
        deps.bus.publish("endpoint.deleted", { endpointId, organizationId: null }),
    });
    if (report.requestsDeleted > 0) onDeleted();
    if (report.requestsDeleted > 0 || report.endpointsDeleted > 0) {
      logger.info("retention sweep", {
        requests_deleted: report.requestsDeleted,
        endpoints_deleted: report.endpointsDeleted,
      });
    }
    return report;
  };
  return {
    name: RETENTION_JOB,
    scope: "cluster",
    pattern: RETENTION_PATTERN,
    run: sweep,
    runNow: true,
  };
}
