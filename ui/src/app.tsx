import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { Link, Notice } from "./components/ui.tsx";
import { AppContext, type AppContextValue } from "./context.ts";
import { createApi, errorText } from "./lib/api.ts";
import { navigate, usePath } from "./lib/router.ts";
import { loadSession, type Session, saveSession } from "./lib/session.ts";
import type { Me } from "./lib/types.ts";
import { type LoggedIn, LoginPage, SetupPage } from "./pages/auth-pages.tsx";
import { EndpointSettingsPage } from "./pages/endpoint-settings-page.tsx";
import { EndpointsPage } from "./pages/endpoints-page.tsx";
import { InspectorPage } from "./pages/inspector-page.tsx";
import { SettingsPage } from "./pages/settings-page.tsx";

type Boot =
  | { phase: "loading" }
  | { phase: "failed"; message: string }
  | { phase: "public"; needsSetup: boolean; registrationOpen: boolean; notice?: string }
  | { phase: "ready"; me: Me };

const PUBLIC_PATHS = new Set(["/setup", "/login"]);

/** The whole UI: decides between first-run setup, login and the logged-in screens. */
export function App() {
  const path = usePath();
  const session = useRef<Session | null>(loadSession());
  const [boot, setBoot] = useState<Boot>({ phase: "loading" });
  const [toast, setToast] = useState("");
  const api = useMemo(
    () =>
      createApi({
        token: () => session.current?.token ?? null,
        organizationId: () => session.current?.organizationId ?? null,
        onUnauthorized: () => endSession("Your session has ended. Log in again."),
      }),
    [],
  );

  function endSession(notice?: string) {
    session.current = null;
    saveSession(null);
    setBoot({ phase: "public", needsSetup: false, registrationOpen: false, notice });
    navigate("/login", { replace: true });
  }

  async function start() {
    try {
      const setup = await api.get<{ needs_setup: boolean; registration: "open" | "closed" }>(
        "/api/v1/auth/setup",
      );
      if (setup.needs_setup || !session.current) {
        setBoot({
          phase: "public",
          needsSetup: setup.needs_setup,
          registrationOpen: setup.registration === "open",
        });
        const target = setup.needs_setup
          ? "/setup"
          : PUBLIC_PATHS.has(location.pathname)
            ? location.pathname
            : "/login";
        navigate(target, { replace: true });
        return;
      }
      await enter();
    } catch (error) {
      setBoot({ phase: "failed", message: errorText(error) });
    }
  }

  async function enter() {
    const me = await api.get<Me>("/api/v1/me");
    const current = session.current;
    if (!current) return;
    const known = me.organizations.some((o) => o.id === current.organizationId);
    if (!known) {
      current.organizationId = me.organizations[0]?.id ?? null;
      saveSession(current);
    }
    setBoot({ phase: "ready", me });
    if (PUBLIC_PATHS.has(location.pathname) || location.pathname === "/")
      navigate("/endpoints", { replace: true });
  }

  async function loggedIn(login: LoggedIn) {
    session.current = {
      token: login.token,
      expiresAt: login.expiresAt,
      organizationId: login.organizations?.[0]?.id ?? null,
    };
    saveSession(session.current);
    try {
      await enter();
    } catch (error) {
      setBoot({ phase: "failed", message: errorText(error) });
    }
  }

  useEffect(() => {
    start();
  }, []);

  useEffect(() => {
    if (!toast) return;
    const timer = setTimeout(() => setToast(""), 4000);
    return () => clearTimeout(timer);
  }, [toast]);

  if (boot.phase === "loading") return <p class="boot">Loading Weir…</p>;
  if (boot.phase === "failed") {
    return (
      <main id="main" class="auth-page">
        <div class="card auth-card">
          <h1>Weir cannot start</h1>
          <Notice kind="error">{boot.message}</Notice>
          <button type="button" class="button primary" onClick={() => location.reload()}>
            Try again
          </button>
        </div>
      </main>
    );
  }
  if (boot.phase === "public") {
    if (path === "/setup" && (boot.needsSetup || boot.registrationOpen)) {
      return <SetupPage api={api} firstRun={boot.needsSetup} onDone={loggedIn} />;
    }
    return (
      <LoginPage
        api={api}
        onDone={loggedIn}
        notice={boot.notice}
        canRegister={boot.registrationOpen}
      />
    );
  }

  const me = boot.me;
  const org =
    me.organizations.find((o) => o.id === session.current?.organizationId) ?? me.organizations[0];
  if (!org || !session.current) {
    return (
      <main id="main" class="auth-page">
        <div class="card auth-card">
          <Notice kind="warning">
            Your account belongs to no organization. Ask an owner to add you.
          </Notice>
          <button type="button" class="button" onClick={() => endSession()}>
            Log out
          </button>
        </div>
      </main>
    );
  }
  const context: AppContextValue = {
    api,
    token: session.current.token,
    me,
    org,
    selectOrganization(id) {
      if (!session.current) return;
      session.current = { ...session.current, organizationId: id };
      saveSession(session.current);
      setBoot({ phase: "ready", me });
      navigate("/endpoints");
    },
    logout: () => endSession("You are logged out."),
    notify: setToast,
  };
  return (
    <AppContext.Provider value={context}>
      <Shell path={path} context={context} />
      <div class="toast" role="status" aria-live="polite">
        {toast}
      </div>
    </AppContext.Provider>
  );
}

function Shell(props: { path: string; context: AppContextValue }) {
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
