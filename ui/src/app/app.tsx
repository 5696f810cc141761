import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { AnonymousPage } from "../capture/anonymous.page.tsx";
import { Notice } from "../kit/notice.tsx";
import { ApiError, createApi, errorText } from "../lib/api.ts";
import { AppContext, type AppContextValue } from "../lib/context.ts";
import { navigate, usePath } from "../lib/router.ts";
import { loadOrganizationId, saveOrganizationId } from "../lib/session.ts";
import type { Me } from "../lib/types.ts";
import { type LoggedIn, LoginPage, SetupPage } from "./auth-pages.tsx";
import { Shell } from "./shell.tsx";

type Boot =
  | { phase: "loading" }
  | { phase: "failed"; message: string }
  | {
      phase: "public";
      needsSetup: boolean;
      registrationOpen: boolean;
      anonymousOn?: boolean;
      notice?: string;
    }
  | { phase: "ready"; me: Me };

const PUBLIC_PATHS = new Set(["/setup", "/login", "/anonymous"]);

/** The whole UI: decides between first-run setup, login and the logged-in screens. */
export function App() {
  const path = usePath();
  // The session is the server's httpOnly cookie; the page only knows whether it is logged in.
  const loggedInNow = useRef(false);
  const organizationId = useRef<string | null>(loadOrganizationId());
  const [boot, setBoot] = useState<Boot>({ phase: "loading" });
  // What the server offers the logged-out (from /auth/setup), for the login page after a logout.
  const serverOffers = useRef({ registrationOpen: false, anonymousOn: false });
  const [toast, setToast] = useState("");
  // The page asked for before the login page took over: where a login lands (same origin only).
  const returnTo = useRef<string | null>(null);
  const rememberPage = () => {
    if (!PUBLIC_PATHS.has(location.pathname) && location.pathname !== "/")
      returnTo.current = location.pathname + location.search;
  };
  const api = useMemo(
    () =>
      createApi({
        organizationId: () => organizationId.current,
        loggedIn: () => loggedInNow.current,
        onUnauthorized: () => endSession("Your session has ended. Log in again."),
      }),
    [],
  );

  function endSession(notice?: string) {
    loggedInNow.current = false;
    // Clears the cookie; a failure only leaves an expired or revoked cookie behind.
    api.post("/api/v1/auth/logout").catch(() => {});
    rememberPage();
    setBoot({ phase: "public", needsSetup: false, ...serverOffers.current, notice });
    navigate("/login", { replace: true });
  }

  function showPublic(needsSetup: boolean, registrationOpen: boolean, anonymousOn: boolean) {
    serverOffers.current = { registrationOpen, anonymousOn };
    if (!needsSetup) rememberPage();
    setBoot({ phase: "public", needsSetup, registrationOpen, anonymousOn });
    const target = needsSetup
      ? "/setup"
      : PUBLIC_PATHS.has(location.pathname)
        ? location.pathname
        : "/login";
    navigate(target, { replace: true });
  }

  async function start() {
    try {
      const setup = await api.get<{
        needs_setup: boolean;
        registration: "open" | "closed";
        anonymous_endpoints: "on" | "off";
      }>("/api/v1/auth/setup");
      const registrationOpen = setup.registration === "open";
      const anonymousOn = setup.anonymous_endpoints === "on";
      serverOffers.current = { registrationOpen, anonymousOn };
      if (setup.needs_setup) return showPublic(true, registrationOpen, anonymousOn);
      try {
        await enter();
      } catch (error) {
        // No session cookie, or an expired one: the login page.
        if (error instanceof ApiError && error.status === 401)
          return showPublic(false, registrationOpen, anonymousOn);
        throw error;
      }
    } catch (error) {
      setBoot({ phase: "failed", message: errorText(error) });
    }
  }

  async function enter() {
    // Read without the remembered organization: it may be one the user has since left.
    const remembered = organizationId.current;
    organizationId.current = null;
    const me = await api.get<Me>("/api/v1/me");
    const known = me.organizations.some((o) => o.id === remembered);
    organizationId.current = known ? remembered : (me.organizations[0]?.id ?? null);
    saveOrganizationId(organizationId.current);
    loggedInNow.current = true;
    setBoot({ phase: "ready", me });
    if (PUBLIC_PATHS.has(location.pathname) || location.pathname === "/") {
      navigate(returnTo.current ?? "/", { replace: true });
      returnTo.current = null;
    }
  }

  async function loggedIn(login: LoggedIn) {
    const remembered = login.organizations?.some((o) => o.id === organizationId.current);
    if (!remembered) organizationId.current = login.organizations?.[0]?.id ?? null;
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

  // Reachable with or without a login: a temporary endpoint needs no account.
  if (path === "/anonymous") return <AnonymousPage />;
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
        anonymousOn={boot.anonymousOn === true}
      />
    );
  }

  const me = boot.me;
  const org = me.organizations.find((o) => o.id === organizationId.current) ?? me.organizations[0];
  if (!org) {
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
    me,
    org,
    selectOrganization(id) {
      organizationId.current = id;
      saveOrganizationId(id);
      setBoot({ phase: "ready", me });
      navigate("/endpoints");
    },
    async refreshMe() {
      setBoot({ phase: "ready", me: await api.get<Me>("/api/v1/me") });
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
