/**
 * The web UI's login, kept in an httpOnly cookie so it survives a new tab and a browser restart
 * while page scripts never read the token (docs/security.md, "Web UI session").
 *
 * Accepted only from the UI itself: the request must carry `X-Weir-UI` (a custom header, which a
 * cross-site page cannot send without a CORS preflight that Weir never grants) and must not be
 * marked cross-site by the browser (`Sec-Fetch-Site`, else `Origin` against `Host`). With
 * `SameSite=Strict` the browser does not even attach the cookie to a request another site starts.
 */

export const UI_SESSION_COOKIE = "weir_session";
/** The header the UI adds to every API call; its value is not checked, only its presence. */
export const UI_REQUEST_HEADER = "x-weir-ui";

type HeaderReader = { get(name: string): string | null };

/** The session token in a `Cookie` header, if any. */
export function sessionCookieOf(headers: HeaderReader): string | null {
  const cookie = headers.get("cookie");
  if (!cookie) return null;
  for (const part of cookie.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== UI_SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return value || null;
  }
  return null;
}

/**
 * Whether the browser says the request comes from a page of this origin. `Sec-Fetch-Site` is the
 * browser's own verdict (a proxy rewriting `Host` does not fool it); older browsers send `Origin`.
 * A request with neither is not a browser's cross-site request, so it is no CSRF.
 */
export function isSameOriginRequest(headers: HeaderReader): boolean {
  const site = headers.get("sec-fetch-site");
  if (site) return site === "same-origin";
  const origin = headers.get("origin");
  if (!origin) return true;
  try {
    return new URL(origin).host === headers.get("host");
  } catch {
    return false;
  }
}

/** The UI session token of an API call, only when it is a same-origin call of the UI. */
export function uiSessionToken(headers: HeaderReader): string | null {
  if (headers.get(UI_REQUEST_HEADER) === null) return null;
  if (!isSameOriginRequest(headers)) return null;
  return sessionCookieOf(headers);
}

/** The UI session token of a socket upgrade (browsers cannot add headers to one). */
export function uiSocketToken(headers: HeaderReader): string | null {
  if (!isSameOriginRequest(headers)) return null;
  return sessionCookieOf(headers);
}

/** `Set-Cookie` for a new session; `Secure` when the browser reached Weir over https. */
export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  const attributes = [
    `${UI_SESSION_COOKIE}=${token}`,
    "Path=/",
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
    "HttpOnly",
    "SameSite=Strict",
  ];
  if (secure) attributes.push("Secure");
  return attributes.join("; ");
}

/** `Set-Cookie` that ends the session in this browser. */
export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie("", 0, secure);
}

/** Whether the browser's side of the connection is https (directly or through a TLS proxy). */
export function reachedOverHttps(url: string, headers: HeaderReader): boolean {
  return url.startsWith("https:") || headers.get("x-forwarded-proto") === "https";
}
