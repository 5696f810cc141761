import { useEffect } from "preact/hooks";
import { Link } from "../kit/link.tsx";
import type { AppContextValue } from "../lib/context.ts";
import { matchRoute, NAV } from "./routes.ts";

/** The logged-in frame: skip link, top bar (navigation, organization, logout) and the page. */
export function Shell(props: { path: string; context: AppContextValue }) {
  const { me, org } = props.context;
  const area = matchRoute(props.path)?.route.area;
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <Link href="/" class="brand" aria-label="Weir home">
          <span aria-hidden="true" class="logo">
            ≋
          </span>
          Weir
        </Link>
        <nav aria-label="Main">
          {NAV.map((item) => (
            <Link
              key={item.area}
              href={item.href}
              aria-current={item.area === area ? "page" : undefined}
            >
              {item.label}
            </Link>
          ))}
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
  const found = matchRoute(props.path);
  useEffect(() => {
    document.title = found ? `${found.route.title} · Weir` : "Page not found · Weir";
  }, [found?.route.title]);
  if (found) return <>{found.route.page(found.params)}</>;
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
