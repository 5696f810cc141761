import { useState } from "preact/hooks";
import { errorText } from "../lib/api.ts";
import { useApp } from "../lib/context.ts";
import { type AlertRule, updateRule } from "./alerts.api.ts";

/** Enable or disable a rule: shown at once, put back with the error beside it if refused. */
export function EnabledToggle(props: { rule: AlertRule; onChanged?: (rule: AlertRule) => void }) {
  const { api, notify } = useApp();
  const [enabled, setEnabled] = useState(props.rule.enabled);
  const [error, setError] = useState("");
  async function toggle() {
    const next = !enabled;
    setEnabled(next);
    setError("");
    try {
      const saved = await updateRule(api, props.rule.id, { enabled: next });
      notify(`Alert rule “${saved.name}” ${saved.enabled ? "enabled" : "disabled"}`);
      props.onChanged?.(saved);
    } catch (e) {
      setEnabled(!next);
      setError(errorText(e));
    }
  }
  return (
    <span>
      <button
        type="button"
        class="button small"
        aria-pressed={enabled}
        aria-label={`Enabled: ${props.rule.name}`}
        onClick={toggle}
      >
        {enabled ? "● On" : "○ Off"}
      </button>
      {error ? <span class="error-text"> {error}</span> : null}
    </span>
  );
}
