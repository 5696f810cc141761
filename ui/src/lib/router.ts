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

/** The current query string, re-rendering on navigation and on back/forward. */
export function useSearch(): string {
  const [search, setSearch] = useState(location.search);
  useEffect(() => {
    const update = () => setSearch(location.search);
    window.addEventListener("popstate", update);
    window.addEventListener(CHANGE, update);
    return () => {
      window.removeEventListener("popstate", update);
      window.removeEventListener(CHANGE, update);
    };
  }, []);
  return search;
}

/** `defaults` overlaid with the query's values for the same keys. */
export function readQuery<T extends Record<string, string>>(search: string, defaults: T): T {
  const params = new URLSearchParams(search);
  const out: Record<string, string> = { ...defaults };
  for (const key of Object.keys(defaults)) out[key] = params.get(key) ?? defaults[key] ?? "";
  return out as T;
}

/** The query string for `values`, defaults left out so a plain list has a plain URL. */
export function writeQuery<T extends Record<string, string>>(values: T, defaults: T): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    if (value !== "" && value !== defaults[key]) params.set(key, value);
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/**
 * A list's filters, page and selection, kept in the URL only: reload, Back and a pasted link
 * show the same screen. Changing anything but `page` goes back to the first page.
 */
export function useQueryState<T extends Record<string, string>>(
  defaults: T,
): [T, (patch: Partial<T>, options?: { replace?: boolean }) => void] {
  const search = useSearch();
  const values = readQuery(search, defaults);
  const update = (patch: Partial<T>, options: { replace?: boolean } = {}) => {
    const next = { ...readQuery(location.search, defaults), ...patch } as T;
    if (!("page" in patch) && "page" in defaults) (next as Record<string, string>).page = "1";
    navigate(location.pathname + writeQuery(next, defaults), options);
  };
  return [values, update];
}
