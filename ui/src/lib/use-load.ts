import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ApiError, errorText } from "./api.ts";

export interface Data<T> {
  state: "loading" | "ready" | "failed";
  data: T | undefined;
  error: ApiError | undefined;
  /** True while a refetch runs with the previous data still shown. */
  refreshing: boolean;
  refetch(): void;
  set(next: T): void;
}

/**
 * Loads what `key` names. A new key or unmount aborts the call in flight and an answer for an
 * old key is dropped, so a fast filter change never shows a slower, older answer. A refetch keeps
 * the data on screen: lists never flash empty.
 */
export function useData<T>(key: string, load: (signal: AbortSignal) => Promise<T>): Data<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [busy, setBusy] = useState(true);
  const [round, setRound] = useState(0);
  const loaded = useRef<string | null>(null);
  const loader = useRef(load);
  loader.current = load;
  useEffect(() => {
    const controller = new AbortController();
    setBusy(true);
    loader
      .current(controller.signal)
      .then((value) => {
        if (controller.signal.aborted) return;
        loaded.current = key;
        setData(value);
        setError(undefined);
        setBusy(false);
      })
      .catch((failure: unknown) => {
        if (controller.signal.aborted) return;
        setError(failure instanceof ApiError ? failure : new ApiError(0, errorText(failure)));
        setBusy(false);
      });
    return () => controller.abort();
  }, [key, round]);
  // Stable, so a poll timer set up with it is not torn down on every render.
  const refetch = useCallback(() => setRound((n) => n + 1), []);
  const current = loaded.current === key ? data : undefined;
  const state = error ? "failed" : current === undefined ? "loading" : "ready";
  return {
    state,
    data: current,
    error,
    refreshing: busy && current !== undefined,
    refetch,
    set: (next: T) => {
      loaded.current = key;
      setData(next);
    },
  };
}
