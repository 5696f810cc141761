import { useState } from "preact/hooks";
import { Loaded } from "../kit/loaded.tsx";
import { ApiError, errorText } from "../lib/api.ts";
import { useApp } from "../lib/context.ts";
import { formFailure } from "../lib/form-errors.ts";
import { useData } from "../lib/use-load.ts";
import { AttachForm } from "./attach-form.tsx";
import { byOrder, moved, renumbered } from "./reorder.ts";
import {
  addComponent,
  detachMonitor,
  listBridges,
  listMonitorChoices,
  placeMonitor,
  removeComponent,
  type StatusPage,
} from "./status-pages.api.ts";

type Row = {
  key: string;
  label: string;
  kind: string;
  group: string | null;
  display_order: number;
  /** Null: the page shows the monitor's or bridge's own name. */
  display_name: string | null;
  shown: string;
};

/**
 * What the page shows: monitors and delivery components, each with its display name and group,
 * in order. Every change is sent at once and the page is read again, so the list is the server's.
 */
export function PageItems(props: { page: StatusPage; writer: boolean; onChanged: () => void }) {
  const { api, notify } = useApp();
  const { page } = props;
  const choices = useData("status-page-choices", async (signal) => {
    const [monitors, bridges] = await Promise.all([
      listMonitorChoices(api, signal),
      listBridges(api, signal),
    ]);
    return { monitors, bridges };
  });
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  async function run(action: () => Promise<unknown>, done: string) {
    setBusy(true);
    setError("");
    try {
      await action();
      notify(done);
    } catch (e) {
      setError(e instanceof ApiError ? formFailure(e).message : errorText(e));
    } finally {
      setBusy(false);
      props.onChanged();
    }
  }

  const monitors = byOrder(page.monitors);
  const components = byOrder(page.components);
  const names = (id: string) => {
    const found = choices.data?.monitors.find((m) => m.id === id);
    return found?.name ?? "monitor";
  };
  const targetName = (c: (typeof components)[number]) => {
    for (const b of choices.data?.bridges ?? []) {
      if ("bridge_id" in c && c.bridge_id === b.id) return `Bridge ${b.name}`;
      const d = b.destinations.find((x) => "destination_id" in c && x.id === c.destination_id);
      if (d) return `Destination ${d.name} (${b.name})`;
    }
    return "bridge or destination";
  };

  function moveMonitor(index: number, step: -1 | 1) {
    const next = moved(monitors, index, step);
    return run(
      () =>
        Promise.all(
          renumbered(next).map(({ item, order }) =>
            placeMonitor(api, page.id, item.monitor_id, {
              display_name: item.display_name,
              group: item.group,
              display_order: order,
            }),
          ),
        ),
      "Order saved",
    );
  }

  // A component has no update: it is added again in its new place.
  function moveComponent(index: number, step: -1 | 1) {
    const next = moved(components, index, step);
    return run(async () => {
      for (const { item, order } of renumbered(next)) {
        const { id, status_page_id: _, ...rest } = item;
        await removeComponent(api, page.id, id);
        await addComponent(api, page.id, { ...rest, display_order: order });
      }
    }, "Order saved");
  }

  const monitorRows: Row[] = monitors.map((m) => ({
    key: m.monitor_id,
    label: names(m.monitor_id),
    kind: "Monitor",
    group: m.group,
    display_order: m.display_order,
    display_name: m.display_name,
    shown: m.display_name ?? names(m.monitor_id),
  }));
  const componentRows: Row[] = components.map((c) => ({
    key: c.id,
    label: targetName(c),
    kind: "Component",
    group: c.group,
    display_order: c.display_order,
    display_name: c.display_name,
    shown: c.display_name ?? targetName(c),
  }));

  return (
    <section class="card" aria-labelledby="items-title">
      <h2 id="items-title">What the page shows</h2>
      {error ? (
        <p class="error-text" role="alert">
          {error}
        </p>
      ) : null}
      <ItemList
        title="Monitors"
        rows={monitorRows}
        writer={props.writer}
        busy={busy}
        onMove={moveMonitor}
        onRemove={(row) =>
          run(() => detachMonitor(api, page.id, row.key), `“${row.shown}” detached`)
        }
      />
      <ItemList
        title="Delivery components"
        rows={componentRows}
        writer={props.writer}
        busy={busy}
        onMove={moveComponent}
        onRemove={(row) =>
          run(() => removeComponent(api, page.id, row.key), `“${row.shown}” removed`)
        }
      />
      {props.writer ? (
        <Loaded data={choices} what="monitors and bridges">
          {(c) => (
            <AttachForm
              page={page}
              monitors={c.monitors}
              bridges={c.bridges}
              onAttached={props.onChanged}
            />
          )}
        </Loaded>
      ) : null}
    </section>
  );
}

function ItemList(props: {
  title: string;
  rows: Row[];
  writer: boolean;
  busy: boolean;
  onMove: (index: number, step: -1 | 1) => void;
  onRemove: (row: Row) => void;
}) {
  return (
    <>
      <h3>{props.title}</h3>
      {props.rows.length === 0 ? (
        <p class="muted">None yet.</p>
      ) : (
        <ol class="page-items" aria-label={props.title}>
          {props.rows.map((row, index) => (
            <li key={row.key}>
              <span>
                <strong>{row.shown}</strong>{" "}
                <span class="muted">
                  {row.display_name ? `${row.label} · ` : ""}
                  {row.group ? `group ${row.group}` : "no group"}
                </span>
              </span>
              {props.writer ? (
                <span class="actions">
                  <button
                    type="button"
                    class="button small"
                    disabled={props.busy || index === 0}
                    aria-label={`Move ${row.shown} up`}
                    onClick={() => props.onMove(index, -1)}
                  >
                    ↑ Up
                  </button>
                  <button
                    type="button"
                    class="button small"
                    disabled={props.busy || index === props.rows.length - 1}
                    aria-label={`Move ${row.shown} down`}
                    onClick={() => props.onMove(index, 1)}
                  >
                    ↓ Down
                  </button>
                  <button
                    type="button"
                    class="button small danger"
                    disabled={props.busy}
                    aria-label={`Remove ${row.shown}`}
                    onClick={() => props.onRemove(row)}
                  >
                    Remove
                  </button>
                </span>
              ) : null}
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
