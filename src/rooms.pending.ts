import { Elysia } from "elysia";

/**
 * The rooms that keep their data in SQLite only so far, with the paths they answer. On
 * PostgreSQL they are not built: their paths answer 501 `not_available_on_postgres`, and the
 * ports other rooms take from them refuse. A room that gains a PostgreSQL store leaves this list.
 */
export const PENDING_ON_POSTGRES = {
  actions: ["/api/v1/endpoints/:id/actions", "/api/v1/endpoints/:id/requests/:request_id/actions"],
  dedup: [],
  routing: ["/api/v1/sources", "/api/v1/bridges", "/api/v1/events", "/api/v1/filters", "/in/:slug"],
  alerts: ["/api/v1/alert-rules"],
  statusPages: ["/api/v1/status-pages", "/status"],
} as const satisfies Record<string, readonly string[]>;

export type PendingRoom = keyof typeof PENDING_ON_POSTGRES;

export const PENDING_ROOM_NAMES = Object.keys(PENDING_ON_POSTGRES) as PendingRoom[];

/** The one sentence both the 501 answers and the refusing ports give. */
export function notOnPostgres(room: PendingRoom): string {
  return `${room} does not run on PostgreSQL yet: run Weir on SQLite to use it`;
}

/** A port of a room that is not running: it throws with the room's name. */
export function refusingPort(room: PendingRoom): () => never {
  return () => {
    throw new Error(notOnPostgres(room));
  };
}

/** One catch-all per path of each pending room, each answering 501 with the room's name. */
export function pendingRoutes() {
  const app = new Elysia({ name: "weir-pending-on-postgres" });
  for (const room of PENDING_ROOM_NAMES) {
    const answer = () =>
      new Response(
        JSON.stringify({ error: "not_available_on_postgres", message: notOnPostgres(room) }),
        { status: 501, headers: { "content-type": "application/json" } },
      );
    for (const path of PENDING_ON_POSTGRES[room]) {
      // GET on its own too: Elysia prefers a method's own routes (the UI's GET /*) to ALL.
      app.all(path, answer, { detail: { hide: true } });
      app.all(`${path}/*`, answer, { detail: { hide: true } });
      app.get(path, answer, { detail: { hide: true } });
      app.get(`${path}/*`, answer, { detail: { hide: true } });
    }
  }
  return app;
}
