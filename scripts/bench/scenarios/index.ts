/** Every scenario, in the order `run.ts` runs them. Adding one: one file + one line here. */
import type { Scenario } from "../lib/types.ts";
import { actions } from "./actions.ts";
import { bunServeJsonBody } from "./bun-serve-json-body.ts";
import { capture1k, capture16k } from "./capture.ts";
import { dedup } from "./dedup.ts";
import { delivery, deliveryBreaker, deliveryLatency } from "./delivery.ts";
import { fanout } from "./fanout.ts";
import { healthz } from "./healthz.ts";
import { ingest } from "./ingest.ts";
import { monitors, monitors10k } from "./monitors.ts";
import { statusPage } from "./status-page.ts";

export const scenarios: readonly Scenario[] = [
  bunServeJsonBody,
  healthz,
  capture1k,
  capture16k,
  fanout,
  delivery,
  deliveryLatency,
  deliveryBreaker,
  ingest,
  dedup,
  actions,
  monitors,
  monitors10k,
  statusPage,
];
