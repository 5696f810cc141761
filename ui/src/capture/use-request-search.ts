import { useEffect, useRef, useState } from "preact/hooks";
import { errorText } from "../lib/api.ts";
import { useApp } from "../lib/context.ts";
import type { CapturedRequest, Page, RequestRow } from "../lib/types.ts";
import { filterParams, isFilterActive, type RequestFilter } from "./request-filter.ts";
import { mergeRequests } from "./requests.ts";

const PAGE_SIZE = 100;
/** Typing is given this long to settle before the server is asked. */
const SETTLE_MS = 250;

export interface Search {
  active: boolean;
  rows: RequestRow[];
  total: number;
  searching: boolean;
  error: string;
  loadMore(): Promise<void>;
}

/**
 * The server's answer to the filter (decisions.md §14): the whole history of the endpoint is
 * searched, not only the loaded rows. Inactive (no request) while the filter is empty; a newer
 * filter's answer always wins over an older one still on its way.
 */
export function useRequestSearch(endpointId: string, filter: RequestFilter): Search {
  const { api } = useApp();
  const [rows, setRows] = useState<RequestRow[]>([]);
  const [total, setTotal] = useState(0);
  const [searching, setSearching] = useState(false);
  const [error, setError] = useState("");
  const generation = useRef(0);
  const active = isFilterActive(filter);
  const query = filterParams(filter).toString();

  async function read(page: number, mine: number) {
    const url = `/api/v1/endpoints/${endpointId}/requests?${query}&page=${page}&page_size=${PAGE_SIZE}`;
    const result = await api.get<Page<CapturedRequest>>(url);
    if (mine !== generation.current) return;
    setRows((current) => (page === 1 ? result.data : mergeRequests(current, result.data)));
    setTotal(result.total);
    setError("");
  }

  useEffect(() => {
    const mine = ++generation.current;
    if (!active) {
      setRows([]);
      setTotal(0);
      setSearching(false);
      return;
    }
    setSearching(true);
    const timer = setTimeout(() => {
      read(1, mine)
        .catch((e) => mine === generation.current && setError(errorText(e)))
        .finally(() => mine === generation.current && setSearching(false));
    }, SETTLE_MS);
    return () => clearTimeout(timer);
  }, [endpointId, query]);

  return {
    active,
    rows,
    total,
    searching,
    error,
    async loadMore() {
      try {
        await read(Math.floor(rows.length / PAGE_SIZE) + 1, generation.current);
      } catch (e) {
        setError(errorText(e));
      }
    },
  };
}
