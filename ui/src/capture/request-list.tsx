import { Component } from "preact";
import { useEffect, useState } from "preact/hooks";
import { MethodBadge } from "../kit/badges.tsx";
import { formatBytes, formatFullDate, formatRelative } from "../kit/format.ts";
import { isNavigationKey, moveSelection } from "../kit/list-keys.ts";
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
 * text fields (handled by the page). The selection follows aria-activedescendant; one click
 * handler on the list serves every row, so rows re-render only when their own data changes.
 */
export function RequestList({ rows, selectedId, onSelect, fresh }: Props) {
  const now = useNow(15_000);
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

  function onClick(event: MouseEvent) {
    const option = (event.target as HTMLElement).closest<HTMLElement>("[data-request-id]");
    const id = option?.dataset.requestId;
    if (id) onSelect(id);
  }

  return (
    <div
      class="request-list"
      role="listbox"
      aria-label="Captured requests, newest first"
      tabIndex={0}
      aria-activedescendant={
        selectedId && rows.some((r) => r.id === selectedId) ? `req-${selectedId}` : undefined
      }
      onKeyDown={onKeyDown}
      onClick={onClick}
    >
      {rows.map((row) => (
        <Row
          key={row.id}
          row={row}
          selected={row.id === selectedId}
          fresh={fresh.has(row.id)}
          now={now}
        />
      ))}
    </div>
  );
}

interface RowProps {
  row: RequestRow;
  selected: boolean;
  fresh: boolean;
  /** The time relative ages are counted from; ticks, so "just now" becomes "1 min ago". */
  now: number;
}

/** The current time, refreshed every `intervalMs`. */
function useNow(intervalMs: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/** One option; skips re-rendering unless its request, selection or freshness changed. */
class Row extends Component<RowProps> {
  override shouldComponentUpdate(next: RowProps): boolean {
    const now = this.props;
    return (
      next.row !== now.row ||
      next.selected !== now.selected ||
      next.fresh !== now.fresh ||
      next.now !== now.now
    );
  }

  override render({ row, selected, fresh, now }: RowProps) {
    return (
      // biome-ignore lint/a11y/useFocusableInteractive: options are reached through aria-activedescendant, not focus.
      <div
        id={`req-${row.id}`}
        role="option"
        aria-selected={selected}
        class={`request-row${selected ? " selected" : ""}${fresh ? " fresh" : ""}`}
        data-request-id={row.id}
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
          <time dateTime={row.created_at} title={formatFullDate(row.created_at)}>
            {formatRelative(row.created_at, now)}
          </time>
          <span>{formatBytes(row.size)}</span>
        </span>
        {fresh ? <span class="visually-hidden">(new)</span> : null}
      </div>
    );
  }
}

function pathWithQuery(row: RequestRow): string {
  return row.query_string ? `${row.path}?${row.query_string}` : row.path || "/";
}
