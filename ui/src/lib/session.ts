/**
 * The login kept for this browser tab only (sessionStorage): closing the tab logs out, and
 * another tab asks again. The token is a JWT; the organization is the one picked last.
 */
export interface Session {
  token: string;
  expiresAt: string | null;
  organizationId: string | null;
}

const KEY = "weir.session";

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    if (!raw) return null;
    const session = JSON.parse(raw) as Session;
    if (typeof session.token !== "string" || !session.token) return null;
    if (session.expiresAt && Date.parse(session.expiresAt) <= Date.now()) return null;
    return session;
  } catch {
    return null;
  }
}

export function saveSession(session: Session | null): void {
  if (session) sessionStorage.setItem(KEY, JSON.stringify(session));
  else sessionStorage.removeItem(KEY);
}
