import { Select } from "../kit/field.tsx";
import { Link } from "../kit/link.tsx";
import { useApp } from "../lib/context.ts";
import { useData } from "../lib/use-load.ts";
import { MonitorStatusBadge } from "./monitor-status.tsx";
import { listMonitors, type Monitor } from "./monitors.api.ts";

type Family = Monitor & { parent_id?: string | null };

/** The organization's first hundred monitors, the same call the list makes. */
function useMonitorList() {
  const { api } = useApp();
  return useData("monitors:family", (signal) => listMonitors(api, signal));
}

/** A monitor's parent and children: whose outage holds its alerts, and whose it holds. */
export function MonitorFamily(props: { monitor: Family }) {
  const list = useMonitorList();
  const all = (list.data?.data ?? []) as Family[];
  const parent = all.find((m) => m.id === props.monitor.parent_id);
  const children = all.filter((m) => m.parent_id === props.monitor.id);
  if (!parent && children.length === 0) return null;
  return (
    <section class="card" aria-labelledby="family-title">
      <h2 id="family-title">Dependencies</h2>
      {parent ? (
        <p>
          Depends on <Link href={`/monitors/${parent.id}`}>{parent.name}</Link>{" "}
          <MonitorStatusBadge status={parent.status} />: while it is down, this monitor's down
          alerts are held.
        </p>
      ) : null}
      {children.length > 0 ? (
        <>
          <p>Monitors that depend on this one (their down alerts wait while it is down):</p>
          <ul>
            {children.map((child) => (
              <li key={child.id}>
                <Link href={`/monitors/${child.id}`}>{child.name}</Link>{" "}
                <MonitorStatusBadge status={child.status} />
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}

/** Picks a monitor's parent among the organization's others; "" is none. */
export function ParentSelect(props: {
  monitorId?: string;
  value: string;
  onChange: (value: string) => void;
  errors?: string[];
}) {
  const list = useMonitorList();
  const others = ((list.data?.data ?? []) as Family[]).filter((m) => m.id !== props.monitorId);
  const options = [
    { value: "", label: "None" },
    ...others.map((m) => ({ value: m.id, label: m.name })),
  ];
  return (
    <Select
      label="Depends on"
      name="parent_id"
      value={props.value}
      options={options}
      onChange={props.onChange}
      errors={props.errors}
      hint="While that monitor is down, this one's down alerts are held."
    />
  );
}
