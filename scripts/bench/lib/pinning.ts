/** Which CPU the server and the load generator get. */
import { availableParallelism } from "node:os";

export interface Pinning {
  /** argv prefix for servers, e.g. ["taskset", "-c", "0"]; empty when unpinned. */
  serverPrefix: string[];
  /** argv prefix for the load generator, e.g. ["taskset", "-c", "1"]; empty when unpinned. */
  loadPrefix: string[];
  /** One line for the report. */
  note: string;
  pinned: boolean;
}

/**
 * Server on cpu 0 and load on cpu 1, so the two never steal each other's core and the server's
 * figure is what one core can do. Without taskset or a second core the run is unpinned and says so.
 */
export function detectPinning(): Pinning {
  const taskset = Bun.which("taskset");
  const cpus = availableParallelism();
  if (taskset && cpus >= 2) {
    return {
      serverPrefix: [taskset, "-c", "0"],
      loadPrefix: [taskset, "-c", "1"],
      note: "pinned: server -> cpu 0, wrk -> cpu 1 (taskset)",
      pinned: true,
    };
  }
  const why = taskset ? `only ${cpus} cpu available` : "taskset not found";
  return {
    serverPrefix: [],
    loadPrefix: [],
    note: `UNPINNED (${why}): server and wrk share the cpus, figures are noisier`,
    pinned: false,
  };
}
