import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { Notice } from "./components/ui.tsx";
import { AppContext, type AppContextValue } from "./context.ts";
import { createApi, errorText } from "./lib/api.ts";
import { navigate, usePath } from "./lib/router.ts";
import { loadSession, type Session, saveSession } from "./lib/session.ts";
import type { Me } from "./lib/types.ts";
import { type LoggedIn, LoginPage, SetupPage } from "./pages/auth-pages.tsx";
import { Shell } from "./shell.tsx";

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
