import type { TestAccount } from "./accounts.ts";
import { signUp } from "./accounts.ts";
import { apiCall } from "./api-call.ts";
import { createFakeClock } from "./fake-clock.ts";
import { createManualScheduler } from "./manual-scheduler.ts";
import { createMonitorAs } from "./monitors.ts";
import { startTestServer, type TestServer } from "./test-server.ts";

const DAY_MS = 86_400_000;
const PATH = "/api/v1/status-pages";

/** Each monitor's checks per day, as pushes: "u" up, "d" down; the last day is today. */
const HISTORY: Record<string, (day: number) => string> = {
  "Public API": (day) => (day === 12 ? "uuud" : "uuuu"),
  Website: () => "uuuu",
  "Order worker": (day) => (day === 0 ? "ud" : "uuuu"),
  Search: (day) => (day === 3 ? "uddd" : "uuuu"),
};

export interface StatusPageWorld {
  server: TestServer;
  owner: TestAccount;
  slug: string;
  stop(): Promise<void>;
}

/**
 * A server with a sample status page: four monitors with 40 days of checks (one down today), two
 * groups and an open incident. The clock is fake and no job runs on its own, so the days are
 * made by moving the clock, and the page always looks the same.
 */
export async function startStatusPageWorld(): Promise<StatusPageWorld> {
  const clock = createFakeClock(Date.UTC(2026, 5, 1, 9));
  const server = await startTestServer({ clock, scheduler: createManualScheduler() });
  const owner = await signUp(server, { plan: "team" });
  const headers = { "x-api-key": await owner.createApiKey() };
  const call = (method: string, path: string, body?: unknown) =>
    apiCall(server, method, path, { headers, body });
  const page = (
    await call("POST", PATH, {
      status_page: {
        name: "Acme status",
        slug: "acme",
        description: "Live state of Acme's shop and its order processing.",
        primary_color: "#0f766e",
        groups: [
          { name: "Shop", order: 1 },
          { name: "Back office", order: 2 },
        ],
      },
    })
  ).body.data;
  const tokens = new Map<string, string>();
  let order = 0;
  for (const name of Object.keys(HISTORY)) {
    const monitor = await createMonitorAs(server, { ...owner, headers } as TestAccount, {
      name,
      type: "push",
      interval_seconds: 3600,
    });
    tokens.set(name, String(monitor.push_url).split("/").pop() ?? "");
    const group = name === "Order worker" || name === "Search" ? "Back office" : "Shop";
    await call("POST", `${PATH}/${page.id}/monitors/${monitor.id}`, {
      display_order: order++,
      group,
    });
  }
  const DAYS = 40;
  for (let day = DAYS - 1; day >= 0; day--) {
    for (const [name, history] of Object.entries(HISTORY)) {
      for (const check of history(day)) {
        const query = check === "d" ? "?status=down&msg=timeout" : "";
        await server.request(`/api/push/${tokens.get(name)}${query}`);
      }
    }
    if (day > 0) clock.advance(DAY_MS);
  }
  await call("POST", `${PATH}/${page.id}/incidents`, {
    title: "Orders are processed late",
    impact: "major",
    status: "identified",
    message: "The order worker lost its database connection; a restart is under way.",
  });
  return { server, owner, slug: page.slug, stop: () => server.stop() };
}
