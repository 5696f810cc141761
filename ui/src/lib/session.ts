/**
 * The login itself lives in an httpOnly cookie the server sets (docs/security.md, "Web UI
 * session"): page scripts never see the token. What the browser keeps here is only the
 * organization picked last, so a new tab opens where the previous one was.
 */
const ORGANIZATION_KEY = "weir.organization";

export function loadOrganizationId(): string | null {
  try {
    return localStorage.getItem(ORGANIZATION_KEY);
  } catch {
    return null;
  }
}

export function saveOrganizationId(id: string | null): void {
  try {
    if (id) localStorage.setItem(ORGANIZATION_KEY, id);
    else localStorage.removeItem(ORGANIZATION_KEY);
  } catch {
    // Storage refused (private mode): the first organization is used next time.
  }
}
