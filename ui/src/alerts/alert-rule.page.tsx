import { useState } from "preact/hooks";
import { ConfirmDialog } from "../kit/confirm-dialog.tsx";
import { Link } from "../kit/link.tsx";
import { Loaded, NotFound } from "../kit/loaded.tsx";
import { Notice } from "../kit/notice.tsx";
import { errorText } from "../lib/api.ts";
import { canWrite, useApp } from "../lib/context.ts";
import { navigate } from "../lib/router.ts";
import { useData } from "../lib/use-load.ts";
import { conditionText } from "./alert-rules.page.tsx";
import { deleteRule, getRule, listSecretNames, sendTestAlert } from "./alerts.api.ts";
import { CHANNELS } from "./channels.ts";
import { EnabledToggle } from "./enabled-toggle.tsx";
import { RuleForm } from "./rule-form.tsx";

/** One alert rule: change it, switch it on or off, send a sample alert, delete it. */
export function AlertRulePage({ ruleId }: { ruleId: string }) {
  const { api, org, notify } = useApp();
  const loaded = useData(`alert-rule:${ruleId}`, async (signal) => {
    const [rule, secretNames] = await Promise.all([
      getRule(api, ruleId, signal),
      listSecretNames(api, signal).catch(() => []),
    ]);
    return { rule, secretNames };
  });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const [deleting, setDeleting] = useState(false);
  if (loaded.state === "failed" && loaded.error?.status === 404)
    return <NotFound what="Alert rule" listHref="/alert-rules" listLabel="Back to alert rules" />;
  return (
    <main id="main" class="page narrow">
      <p class="crumbs">
        <Link href="/alert-rules">Alert rules</Link> /
      </p>
      <Loaded data={loaded} what="the alert rule">
        {({ rule, secretNames }) => (
          <>
            <h1>{rule.name}</h1>
            <p>
              {conditionText(rule)} → {CHANNELS[rule.channel.type].label}
            </p>
            {canWrite(org) ? (
              <>
                <div class="actions">
                  <EnabledToggle rule={rule} key={`${rule.id}-${rule.enabled}`} />
                  <button
                    type="button"
                    class="button"
                    disabled={busy}
                    onClick={async () => {
                      setBusy(true);
                      setError("");
                      try {
                        await sendTestAlert(api, rule.id);
                        notify("Test alert queued: it is sent within moments");
                      } catch (e) {
                        setError(errorText(e));
                      } finally {
                        setBusy(false);
                      }
                    }}
                  >
                    {busy ? "Sending…" : "Send a test alert"}
                  </button>
                  <button type="button" class="button danger" onClick={() => setDeleting(true)}>
                    Delete rule
                  </button>
                </div>
                {error ? <Notice kind="error">{error}</Notice> : null}
                <RuleForm
                  key={rule.updated_at}
                  rule={rule}
                  secretNames={secretNames}
                  onSaved={(saved) => loaded.set({ rule: saved, secretNames })}
                />
              </>
            ) : null}
            {deleting ? (
              <ConfirmDialog
                title={`Delete alert rule “${rule.name}”?`}
                confirmLabel="Delete rule"
                onClose={() => setDeleting(false)}
                onConfirm={async () => {
                  try {
                    await deleteRule(api, rule.id);
                    notify(`Alert rule “${rule.name}” deleted`);
                    navigate("/alert-rules");
                  } catch (e) {
                    setError(errorText(e));
                  }
                }}
              >
                <p>Alerts already queued by it are not sent.</p>
              </ConfirmDialog>
            ) : null}
          </>
        )}
      </Loaded>
    </main>
  );
}
