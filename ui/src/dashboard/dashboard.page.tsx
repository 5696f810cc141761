import type { ComponentChildren } from "preact";
import { Link } from "../kit/link.tsx";
import { Loaded } from "../kit/loaded.tsx";
import { Time } from "../kit/time.tsx";
import { useApp } from "../lib/context.ts";
import type { Data } from "../lib/use-load.ts";
import { useData } from "../lib/use-load.ts";
import { inMaintenance, receivingToday, troubledMonitors } from "./attention.ts";
import {
  LIMIT,
  listEndpoints,
  listFailedEvents,
  listMonitors,
  listOpenIssues,
} from "./dashboard.api.ts";

/** The first page after login: what needs attention across the organization, with links. */
export function DashboardPage() {
  const { api, org } = useApp();
  const monitors = useData("dashboard-monitors", (signal) => listMonitors(api, signal));
  const issues = useData("dashboard-issues", (signal) => listOpenIssues(api, signal));
  const failed = useData("dashboard-failed", (signal) => listFailedEvents(api, signal));
  const endpoints = useData("dashboard-endpoints", (signal) => listEndpoints(api, signal));
  return (
    <main id="main" class="page">
      <h1>Dashboard</h1>
      <p class="muted">What needs attention in {org.name}.</p>
      <div class="dashboard-grid">
        <Panel
          id="dash-monitors"
          title="Monitors down"
          data={monitors}
          what="monitors"
          href="/monitors?status=down"
          all="All monitors"
        >
          {(page) => {
            const troubled = troubledMonitors(page.data, LIMIT);
            const resting = inMaintenance(page.data);
            const maintenance =
              resting > 0 ? (
                <p>
                  <span aria-hidden="true">⚒</span> {resting} in maintenance ·{" "}
                  <Link href="/maintenance">Maintenance windows</Link>
                </p>
              ) : null;
            if (troubled.length === 0)
              return (
                <>
                  <p class="all-clear">
                    ✔{" "}
                    {page.total === 0
                      ? "No monitors yet."
                      : resting > 0
                        ? "No monitor is down."
                        : "Every monitor is up."}
                  </p>
                  {maintenance}
                </>
              );
            return (
              <>
                {maintenance}
                <ul>
                  {troubled.map((m) => (
                    <li key={m.id}>
                      <span class={`badge tone-${m.status === "down" ? "danger" : "warn"}`}>
                        <span aria-hidden="true">{m.status === "down" ? "▼" : "◆"}</span>{" "}
                        {m.status === "down" ? "Down" : "Degraded"}
                      </span>{" "}
                      <Link href={`/monitors/${m.id}`}>{m.name}</Link>
                    </li>
                  ))}
                </ul>
              </>
            );
          }}
        </Panel>
        <Panel
          id="dash-issues"
          title="Open issues"
          data={issues}
          what="issues"
          href="/issues"
          all="All issues"
        >
          {(answer) =>
            answer.items.length === 0 ? (
              <p class="all-clear">✔ No open issues.</p>
            ) : (
              <>
                <p>{answer.pagination.total_records} open</p>
                <ul>
                  {answer.items.map((i) => (
                    <li key={i.id}>
                      <Link href={`/issues/${i.id}`}>{i.error_message || i.error_type}</Link>{" "}
                      <span class="muted">
                        ({i.occurrence_count}×, last <Time iso={i.last_occurrence_at} />)
                      </span>
                    </li>
                  ))}
                </ul>
              </>
            )
          }
        </Panel>
        <Panel
          id="dash-failed"
          title="Failing deliveries"
          data={failed}
          what="events"
          href="/events?status=failed"
          all="All failed events"
        >
          {(page) =>
            page.data.length === 0 ? (
              <p class="all-clear">✔ No failed events.</p>
            ) : (
              <>
                <p>
                  {page.total} failed {page.total === 1 ? "event" : "events"}
                </p>
                <ul>
                  {page.data.map((e) => (
                    <li key={e.id}>
                      <Link href={`/events/${e.id}`}>
                        {e.request.method} {e.request.path || "/"}
                      </Link>{" "}
                      <span class="muted">
                        <Time iso={e.created_at} />
                      </span>
                    </li>
                  ))}
                </ul>
              </>
            )
          }
        </Panel>
        <Panel
          id="dash-endpoints"
          title="Endpoints receiving today"
          data={endpoints}
          what="endpoints"
          href="/endpoints"
          all="All endpoints"
        >
          {(list) => {
            const today = receivingToday(list, new Date(), LIMIT);
            if (today.length === 0) return <p>No requests yet today.</p>;
            return (
              <ul>
                {today.map((e) => (
                  <li key={e.id}>
                    <Link href={`/endpoints/${e.id}`}>{e.name}</Link>{" "}
                    <span class="muted">
                      (last <Time iso={e.last_request_at} />, {e.request_count ?? 0} in all)
                    </span>
                  </li>
                ))}
              </ul>
            );
          }}
        </Panel>
      </div>
    </main>
  );
}

function Panel<T>(props: {
  id: string;
  title: string;
  data: Data<T>;
  what: string;
  href: string;
  all: string;
  children: (value: T) => ComponentChildren;
}) {
  return (
    <section class="card dashboard-panel" aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      {props.data.error?.code === "feature_not_available" ? (
        <p class="muted">Your plan does not include this.</p>
      ) : (
        <Loaded data={props.data} what={props.what}>
          {props.children}
        </Loaded>
      )}
      <p>
        <Link href={props.href}>{props.all} →</Link>
      </p>
    </section>
  );
}
