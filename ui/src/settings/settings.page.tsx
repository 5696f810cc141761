import { Notice } from "../kit/notice.tsx";
import { useApp } from "../lib/context.ts";
import { PLAN_LABEL } from "../lib/plans.ts";
import { OrganizationNameForm, PasswordSection } from "./account-section.tsx";
import { ApiKeysSection } from "./api-keys-section.tsx";
import { MembersSection } from "./members-section.tsx";

/** The organization: its plan and limits, API keys, members. */
export function SettingsPage() {
  const { org, me } = useApp();
  const limits = org.limits;
  const rows: [string, string][] = [
    [
      "Debug endpoints",
      limits.debug_endpoints === null ? "Unlimited" : String(limits.debug_endpoints),
    ],
    ["Request retention", `${limits.retention_days} days`],
    ["Live updates (socket)", limits.realtime ? "Included" : "Not included"],
    ["API keys", limits.api_keys ? "Included" : "Not included"],
    [
      "Capture rate per endpoint and per source",
      `${limits.capture_rate_per_second}/s, bursts of ${limits.capture_burst}`,
    ],
    [
      "Stored event bodies",
      limits.event_storage_mb === null ? "Unlimited" : `${limits.event_storage_mb} MiB`,
    ],
  ];
  return (
    <main id="main" class="page narrow">
      <h1>Settings</h1>
      <section class="card" aria-labelledby="org-title">
        <h2 id="org-title">Organization</h2>
        <dl class="facts">
          <div>
            <dt>Name</dt>
            <dd>{org.name}</dd>
          </div>
          <div>
            <dt>Your role</dt>
            <dd class="capitalize">{org.role}</dd>
          </div>
          <div>
            <dt>Plan</dt>
            <dd>{PLAN_LABEL[org.plan]}</dd>
          </div>
          <div>
            <dt>Signed in as</dt>
            <dd>{me.user?.email ?? "API key"}</dd>
          </div>
        </dl>
        <h3>Plan limits</h3>
        <table class="kv" aria-label="Plan limits">
          <tbody>
            {rows.map(([name, value]) => (
              <tr key={name}>
                <th scope="row">{name}</th>
                <td>{value}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p class="muted small">
          Plans are set by the server administrator (<code>weir admin set-plan</code>).
        </p>
        {org.role === "owner" ? <OrganizationNameForm key={org.id} /> : null}
      </section>
      <PasswordSection />
      {org.role === "owner" ? (
        <>
          <ApiKeysSection />
          <MembersSection />
        </>
      ) : (
        <Notice kind="info">API keys and members are managed by the organization's owners.</Notice>
      )}
    </main>
  );
}
