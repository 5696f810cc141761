import { useState } from "preact/hooks";
import { CopyButton } from "../kit/copy-button.tsx";
import { type Column, DataTable } from "../kit/data-table.tsx";
import { Link } from "../kit/link.tsx";
import { Loaded } from "../kit/loaded.tsx";
import { Notice } from "../kit/notice.tsx";
import { canWrite, useApp } from "../lib/context.ts";
import { useData } from "../lib/use-load.ts";
import { type AlertRule, listRules, listSecretNames } from "./alerts.api.ts";
import { CHANNELS, CONDITIONS } from "./channels.ts";
import { EnabledToggle } from "./enabled-toggle.tsx";
import { RuleForm } from "./rule-form.tsx";

export const conditionText = (r: AlertRule) =>
  `${CONDITIONS[r.condition.type].label}${r.condition.value === undefined ? "" : ` (${r.condition.value})`}`;

/** The rules that tell people when deliveries break, and on which channel. */
export function AlertRulesPage() {
  const { api, org } = useApp();
  const rules = useData("alert-rules", (signal) => listRules(api, 1, signal));
  const secrets = useData("alert-secret-names", (signal) =>
    listSecretNames(api, signal).catch(() => []),
  );
  const [secret, setSecret] = useState<string | null>(null);
  const writer = canWrite(org);
  const columns: Column<AlertRule>[] = [
    { label: "Name", cell: (r) => <Link href={`/alert-rules/${r.id}`}>{r.name}</Link> },
    { label: "When", cell: conditionText },
    { label: "Channel", cell: (r) => CHANNELS[r.channel.type].label },
    {
      label: "Enabled",
      cell: (r) =>
        writer ? (
          <EnabledToggle rule={r} onChanged={rules.refetch} />
        ) : r.enabled ? (
          "● On"
        ) : (
          "○ Off"
        ),
    },
  ];
  return (
    <main id="main" class="page">
      <h1>Alert rules</h1>
      {secret ? (
        <Notice kind="success">
          <p>
            Signing secret of the webhook channel (shown once): <code class="wrap">{secret}</code>{" "}
            <CopyButton text={secret} label="Copy signing secret" />
          </p>
        </Notice>
      ) : null}
      {writer ? (
        <RuleForm
          secretNames={secrets.data ?? []}
          onSaved={(rule) => {
            setSecret(rule.channel.signing_secret ?? null);
            rules.refetch();
          }}
        />
      ) : null}
      <Loaded data={rules} what="alert rules">
        {(page) =>
          page.data.length === 0 ? (
            <p class="empty">No alert rules yet: nobody is told when deliveries fail.</p>
          ) : (
            <DataTable
              caption="Alert rules"
              columns={columns}
              rows={page.data}
              rowKey={(r) => r.id}
            />
          )
        }
      </Loaded>
    </main>
  );
}
