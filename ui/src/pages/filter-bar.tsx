import type { RequestFilter } from "../lib/filter.ts";

interface FilterProps {
  filter: RequestFilter;
  methods: string[];
  onChange: (filter: RequestFilter) => void;
  shown: number;
  loaded: number;
  total: number;
}

/** Method menu, text filter and how many requests are shown of how many. */
export function FilterBar({ filter, methods, onChange, shown, loaded, total }: FilterProps) {
  return (
    <div class="filter-bar">
      <label>
        <span class="visually-hidden">Method</span>
        <select
          value={filter.method}
          onChange={(e) =>
            onChange({ ...filter, method: (e.currentTarget as HTMLSelectElement).value })
          }
        >
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
          placeholder="Filter: path, header, body…"
          value={filter.text}
          onInput={(e) =>
            onChange({ ...filter, text: (e.currentTarget as HTMLInputElement).value })
          }
        />
      </label>
      <p class="count muted small">
        {shown === loaded
          ? `${loaded.toLocaleString()} of ${total.toLocaleString()}`
          : `${shown} shown of ${loaded} loaded`}
      </p>
    </div>
  );
}
