import { useEffect, useRef } from "preact/hooks";
import { MethodBadge } from "../components/ui.tsx";
import { formatBytes, formatClock, formatTimestamp } from "../lib/format.ts";
import { isNavigationKey, moveSelection } from "../lib/nav.ts";
import type { RequestRow } from "../lib/types.ts";

interface Props {
  rows: RequestRow[];
  selectedId: string | undefined;
  onSelect: (id: string) => void;
  /** Ids that arrived live since the page opened, briefly marked. */
  fresh: Set<string>;
}

/**
 * The request list as a listbox: arrow keys, Home/End while it has focus, j/k anywhere outside
 * text fields (handled by the page). The selection follows aria-activedescendant.
 */
export function RequestList({ rows, selectedId, onSelect, fresh }: Props) {
  const listRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!selectedId) return;
    document.getElementById(`req-${selectedId}`)?.scrollIntoView({ block: "nearest" });
  }, [selectedId]);

  function onKeyDown(event: KeyboardEvent) {
    if (event.key === "j" || event.key === "k" || !isNavigationKey(event.key)) return;
    event.preventDefault();
    const next = moveSelection(
      rows.map((r) => r.id),
      selectedId,
      event.key,
    );
    if (next) onSelect(next);
  }

  return (
    <div
      ref={listRef}
      class="request-list"
      role="listbox"
      aria-label="Captured requests, newest first"
      tabIndex={0}
      aria-activedescendant={
        selectedId && rows.some((r) => r.id === selectedId) ? `req-${selectedId}` : undefined
      }
      onKeyDown={onKeyDown}
    >
      {rows.map((row) => (
        // biome-ignore lint/a11y/useKeyWithClickEvents: keys are handled on the listbox, which owns focus.
        // biome-ignore lint/a11y/useFocusableInteractive: options are reached through aria-activedescendant, not focus.
        <div
          key={row.id}
          id={`req-${row.id}`}
          role="option"
          aria-selected={row.id === selectedId}
          class={`request-row${row.id === selectedId ? " selected" : ""}${fresh.has(row.id) ? " fresh" : ""}`}
          data-request-id={row.id}
          onClick={() => onSelect(row.id)}
        >
          <MethodBadge method={row.method} />
          <span class="row-path">
            {row.partial ? (
              <em class="muted">{row.content_type ?? "new request"}</em>
            ) : (
              pathWithQuery(row)
            )}
          </span>
          <span class="row-meta">
            <time dateTime={row.created_at} title={formatTimestamp(row.created_at)}>
              {formatClock(row.created_at)}
            </time>
            <span>{formatBytes(row.size)}</span>
          </span>
          {fresh.has(row.id) ? <span class="visually-hidden">(new)</span> : null}
        </div>
      ))}
    </div>
  );
}

function pathWithQuery(row: RequestRow): string {
  return row.query_string ? `${row.path}?${row.query_string}` : row.path || "/";
}
