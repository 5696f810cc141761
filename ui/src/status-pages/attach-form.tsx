import { useState } from "preact/hooks";
import { Field, Select } from "../kit/field.tsx";
import { useApp } from "../lib/context.ts";
import { formFailure } from "../lib/form-errors.ts";
import { addComponent, placeMonitor, type StatusPage } from "./status-pages.api.ts";

/** Adds a monitor, a bridge or a destination at the end of the page, in a group if chosen. */
export function AttachForm(props: {
  page: StatusPage;
  monitors: { id: string; name: string }[];
  bridges: {
    id: string;
    name: string;
    destinations: { id: string; name: string }[];
  }[];
  onAttached: () => void;
}) {
  const { api, notify } = useApp();
  const { page } = props;
  const [target, setTarget] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [group, setGroup] = useState("");
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [busy, setBusy] = useState(false);
  const options = [
    { value: "", label: "Choose…" },
    ...props.monitors
      .filter((m) => !page.monitors.some((p) => p.monitor_id === m.id))
      .map((m) => ({ value: `monitor:${m.id}`, label: `Monitor: ${m.name}` })),
    ...props.bridges.flatMap((b) => [
      { value: `bridge:${b.id}`, label: `Bridge: ${b.name}` },
      ...b.destinations.map((d) => ({
        value: `destination:${d.id}`,
        label: `Destination: ${d.name} (${b.name})`,
      })),
    ]),
  ];

  async function submit(event: Event) {
    event.preventDefault();
    const [kind, id] = target.split(":");
    if (!kind || !id) {
      setErrors({ target: ["Choose what to show."] });
      return;
    }
    setBusy(true);
    const name = displayName.trim();
    const placement = {
      ...(name ? { display_name: name } : {}),
      group: group || null,
    };
    try {
      if (kind === "monitor")
        await placeMonitor(api, page.id, id, {
          ...placement,
          display_order: page.monitors.length + 1,
        });
      else
        await addComponent(api, page.id, {
          [`${kind}_id`]: id,
          ...placement,
          display_order: page.components.length + 1,
        });
      notify(`Added to “${page.name}”`);
      setTarget("");
      setDisplayName("");
      setErrors({});
      props.onAttached();
    } catch (e) {
      const failure = formFailure(e);
      setErrors(
        Object.keys(failure.errors).length > 0 ? failure.errors : { target: [failure.message] },
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="attach-form" onSubmit={submit} noValidate aria-label="Add to the page">
      <h3>Add to the page</h3>
      <div class="field-row">
        <Select
          label="Monitor, bridge or destination"
          name="target"
          value={target}
          options={options}
          errors={errors.target ?? errors.bridge_id ?? errors.destination_id}
          onChange={(v) => {
            setTarget(v);
            setErrors({});
          }}
        />
        <Field
          label="Display name"
          name="display_name"
          value={displayName}
          onInput={setDisplayName}
          errors={errors.display_name}
          hint="Left empty, the monitor's or bridge's own name."
        />
        <Select
          label="Group"
          name="group"
          value={group}
          options={[
            { value: "", label: "No group" },
            ...page.groups.map((g) => ({ value: g.name, label: g.name })),
          ]}
          errors={errors.group}
          onChange={setGroup}
        />
      </div>
      <button type="submit" class="button" disabled={busy}>
        {busy ? "Adding…" : "Add to page"}
      </button>
    </form>
  );
}
