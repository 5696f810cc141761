import type { RequestFilter } from "./request-filter.ts";

interface FilterProps {
  filter: RequestFilter;
  methods: string[];
  onChange: (filter: RequestFilter) => void;
  /** The words under the filter: how many are shown of how many. */
  count: string;
}

/** Method menu, text search, date range, and how many requests are shown of how many. */
export function FilterBar({ filter, methods, onChange, count }: FilterProps) {
  const set = (patch: Partial<RequestFilter>) => onChange({ ...filter, ...patch });
  const value = (e: Event) => (e.currentTarget as HTMLInputElement | HTMLSelectElement).value;
  return (
    <div class="filter-bar">
      <label>
        <span class="visually-hidden">Method</span>
        <select value={filter.method} onChange={(e) => set({ method: value(e) })}>
          <option value="">All methods</option>
          {methods.map((m) => (
            <option value={m} key={m}>
              {m}
            </option>
          ))}
        </select>
      </label>
      <label class="grow">
        <span class="visually-hidden">Filter by text</span>
        <input
          id="request-filter-text"
          type="search"
          placeholder="Search all requests: path, header, body…"
          value={filter.text}
          onInput={(e) => set({ text: value(e) })}
        />
      </label>
      <details class="date-range" open={Boolean(filter.since || filter.until)}>
        <summary>Dates</summary>
        <label>
          From
          <input
            type="datetime-local"
            step="1"
            value={filter.since}
            onInput={(e) => set({ since: value(e) })}
          />
        </label>
        <label>
          Until
          <input
            type="datetime-local"
            step="1"
            value={filter.until}
            onInput={(e) => set({ until: value(e) })}
          />
        </label>
      </details>
      <p class="count muted small" aria-live="polite">
        {count}
      </p>
    </div>
  );
}
