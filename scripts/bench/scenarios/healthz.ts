import { weirServer } from "../lib/subjects.ts";
import type { Scenario } from "../lib/types.ts";

/** The cheapest real route: Elysia routing, response validation and one SQLite `SELECT 1`. */
export const healthz: Scenario = {
  name: "healthz",
  description: "Weir GET /healthz (Elysia + a SQLite ping) vs raw Bun.serve on the same GET",
  weir: true,
  subject: (ctx) => weirServer(ctx),
  request: { method: "GET", path: "/healthz" },
};
