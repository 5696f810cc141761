import { useEffect, useState } from "preact/hooks";

const CHANGE = "weir:navigate";

/** Goes to an in-app path without reloading (history.pushState). */
export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (path === location.pathname + location.search) return;
  if (options.replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  window.dispatchEvent(new Event(CHANGE));
}

/** The current path, re-rendering on navigation and on back/forward. */
export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    window.addEventListener("popstate", update);
    window.addEventListener(CHANGE, update);
    return () => {
      window.removeEventListener("popstate", update);
      window.removeEventListener(CHANGE, update);
    };
  }, []);
  return path;
}

/** A click handler for links: in-app navigation unless the user asked for a new tab. */
export function onLinkClick(event: MouseEvent): void {
  const anchor = event.currentTarget as HTMLAnchorElement;
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
    return;
  event.preventDefault();
  navigate(anchor.getAttribute("href") ?? "/");
}
