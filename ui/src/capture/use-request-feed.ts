import { useEffect, useRef, useState } from "preact/hooks";
import { errorText } from "../lib/api.ts";
import { useApp } from "../lib/context.ts";
import { followEndpoint, type LiveState } from "../lib/live.ts";
import type { ActionResult, CapturedRequest, Page, RequestRow } from "../lib/types.ts";
import { mergeRequests, newestId, rowFromEvent } from "./requests.ts";

export const PAGE_SIZE = 100;
/** How often the list is re-read when the plan has no live socket. */
const POLL_MS = 5000;
/** Live rows are completed from the API at most this often (one read for a burst). */
const COMPLETE_AFTER_MS = 250;
/** What polling and reconnects re-read first; more only when more arrived. */
const QUICK_SIZE = 20;
/** Rows kept while live events keep coming. */
const MAX_ROWS = 2000;

export interface Feed {
  rows: RequestRow[];
  total: number;
  loading: boolean;
  error: string;
  live: { state: LiveState; reason?: string };
  polling: boolean;
  /** Requests that arrived over the socket while the page was open (marked as new). */
  liveIds: Set<string>;
  /** Action runs pushed over the socket while the page was open, by request id. */
  actionRuns: Record<string, ActionResult[]>;
  loadOlder(): Promise<void>;
  /** Reads one request whole (a list or the socket cut its body past 64 KiB). */
  complete(id: string): Promise<void>;
  clear(): void;
}

/** Lists cut bodies past 64 KiB: such a row is completed from get-one when it is looked at. */
const asRows = (requests: CapturedRequest[]): RequestRow[] =>
  requests.map((request) => (request.body_truncated ? { ...request, partial: true } : request));

/**
 * The requests of one endpoint: the newest page from the API, then live events over the socket
 * (catch-up on every rejoin), live rows completed from the API; polling when the plan has no socket.
 */
export function useRequestFeed(endpointId: string): Feed {
  const { api, org } = useApp();
  const [rows, setRows] = useState<RequestRow[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState("");
  const [live, setLive] = useState<Feed["live"]>({ state: "connecting" });
  const [actionRuns, setActionRuns] = useState<Feed["actionRuns"]>({});
  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  const totalRef = useRef(total);
  const liveIds = useRef(new Set<string>()).current;
  totalRef.current = total;
  const completeTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const base = `/api/v1/endpoints/${endpointId}/requests`;
  const realtime = org.limits.realtime;

  async function readPage(page: number, pageSize = PAGE_SIZE) {
    const result = await api.get<Page<CapturedRequest>>(
      `${base}?page=${page}&page_size=${pageSize}`,
    );
    setRows((current) => mergeRequests(current, asRows(result.data)));
    setTotal((current) => Math.max(current, result.total));
    return result;
  }

  /**
   * Re-reads the newest `size` requests (full records for live rows, or what polling finds); when
   * more than that arrived since the last known total, reads up to a whole page so no gap opens.
   */
  async function refreshNewest(size = QUICK_SIZE) {
    try {
      const read = (n: number) => api.get<Page<CapturedRequest>>(`${base}?page=1&page_size=${n}`);
      let result = await read(size);
      const arrived = result.total - totalRef.current;
      if (arrived > size && size < PAGE_SIZE) result = await read(Math.min(PAGE_SIZE, arrived));
      setRows((current) => mergeRequests(current, asRows(result.data)));
      setTotal(result.total);
      setError("");
    } catch (e) {
      setError(errorText(e));
    }
  }

  /** Live rows carry no path, query or full body: read them once a burst is over. */
  function completeSoon() {
    if (completeTimer.current) return;
    completeTimer.current = setTimeout(async () => {
      completeTimer.current = undefined;
      const partial = rowsRef.current.filter((row) => row.partial).length;
      await refreshNewest(Math.min(PAGE_SIZE, Math.max(1, partial)));
    }, COMPLETE_AFTER_MS);
  }

  useEffect(() => {
    let stop = () => {};
    let poll: ReturnType<typeof setInterval> | undefined;
    let cancelled = false;
    readPage(1)
      .then(() => setError(""))
      .catch((e) => setError(errorText(e)))
      .finally(() => {
        setLoading(false);
        if (cancelled) return;
        if (!realtime) {
          setLive({ state: "unavailable", reason: "feature_not_available" });
          poll = setInterval(() => refreshNewest(), POLL_MS);
          return;
        }
        stop = followEndpoint({
          organizationId: org.id,
          endpointId,
          sinceRequestId: () => newestId(rowsRef.current),
          onEvent: (event) => {
            liveIds.add(event.request_id);
            setRows((current) => {
              const merged = mergeRequests(current, [rowFromEvent(event)]);
              if (merged !== current) setTotal((t) => t + 1);
              // A tab left open on a busy endpoint keeps the newest rows only.
              return merged.length > MAX_ROWS ? merged.slice(0, MAX_ROWS) : merged;
            });
            completeSoon();
          },
          onActions: (event) =>
            setActionRuns((current) => ({ ...current, [event.request_id]: event.results })),
          onState: (state, reason) => {
            setLive({ state, reason });
            if (state === "unavailable" && !poll)
              poll = setInterval(() => refreshNewest(), POLL_MS);
          },
          onJoined: () => refreshNewest(),
        });
      });
    return () => {
      cancelled = true;
      stop();
      if (poll) clearInterval(poll);
      if (completeTimer.current) clearTimeout(completeTimer.current);
    };
  }, [endpointId]);

  return {
    rows,
    total,
    loading,
    error,
    live,
    polling: live.state === "unavailable",
    liveIds,
    actionRuns,
    async loadOlder() {
      try {
        await readPage(Math.floor(rowsRef.current.length / PAGE_SIZE) + 1);
      } catch (e) {
        setError(errorText(e));
      }
    },
    async complete(id) {
      try {
        const result = await api.get<{ data: CapturedRequest }>(`${base}/${id}`);
        setRows((current) => mergeRequests(current, [result.data]));
      } catch (e) {
        setError(errorText(e));
      }
    },
    clear() {
      setRows([]);
      setTotal(0);
    },
  };
}
