import { baselineServer } from "../lib/subjects.ts";
import type { Scenario } from "../lib/types.ts";

/**
 * The baseline measured against itself: its ratio must come out near 1.00. If it does not, the
 * machine is too noisy (or the harness is wrong) and no other ratio of the run can be trusted.
 */
export const bunServeJsonBody: Scenario = {
  name: "bun-serve-json-body",
  description:
    "sanity check: the baseline server as a subject, POST 1 KiB JSON; ratio should be ~1.00",
  subject: baselineServer,
  request: { method: "POST", path: "/", bodyBytes: 1024 },
  // Rounds are ±15 % on a noisy box; the median of a same-vs-same ratio stays well inside this.
  targets: { minRatio: 0.85, maxRatio: 1.15 },
};
