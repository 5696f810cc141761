import { Link } from "./components/ui.tsx";
import type { AppContextValue } from "./context.ts";
import { EndpointSettingsPage } from "./pages/endpoint-settings-page.tsx";
import { EndpointsPage } from "./pages/endpoints-page.tsx";
import { InspectorPage } from "./pages/inspector-page.tsx";
import { SettingsPage } from "./pages/settings-page.tsx";

/** The logged-in frame: skip link, top bar (navigation, organization, logout) and the page. */
export function Shell(props: { path: string; context: AppContextValue }) {
  const { me, org } = props.context;
  const section = props.path.startsWith("/settings") ? "settings" : "endpoints";
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <Link href="/endpoints" class="brand" aria-label="Weir home">
          <span aria-hidden="true" class="logo">
            ≋
          </span>
          Weir
        </Link>
        <nav aria-label="Main">
          <Link href="/endpoints" aria-current={section === "endpoints" ? "page" : undefined}>
            Endpoints
          </Link>
          <Link href="/settings" aria-current={section === "settings" ? "page" : undefined}>
            Settings
          </Link>
        </nav>
        <div class="account">
          {me.organizations.length > 1 ? (
            <label class="org-switch">
              <span class="visually-hidden">Organization</span>
              <select
                value={org.id}
                onChange={(e) =>
                  props.context.selectOrganization((e.currentTarget as HTMLSelectElement).value)
                }
              >
                {me.organizations.map((o) => (
                  <option value={o.id} key={o.id}>
                    {o.name}
                  </option>
                ))}
              </select>
            </label>
          ) : (
            <span class="org-name" title="Organization">
              {org.name}
            </span>
          )}
          <span class="user-email">{me.user?.email}</span>
          <button type="button" class="button small" onClick={props.context.logout}>
            Log out
          </button>
        </div>
      </header>
      <Routes path={props.path} key={org.id} />
    </>
  );
}

function Routes(props: { path: string }) {
  const settings = /^\/endpoints\/([^/]+)\/settings$/.exec(props.path);
  if (settings?.[1]) return <EndpointSettingsPage endpointId={settings[1]} key={settings[1]} />;
  const inspector = /^\/endpoints\/([^/]+)$/.exec(props.path);
  if (inspector?.[1]) return <InspectorPage endpointId={inspector[1]} key={inspector[1]} />;
  if (props.path === "/endpoints" || props.path === "/") return <EndpointsPage />;
  if (props.path === "/settings") return <SettingsPage />;
  return (
    <main id="main" class="page">
      <h1>Page not found</h1>
      <p>
        Nothing lives at <code>{props.path}</code>.{" "}
        <Link href="/endpoints">Go to your endpoints</Link>.
      </p>
    </main>
  );
}
