import { useCallback, useEffect, useState } from "preact/hooks";
import { errorText } from "./api.ts";

export type Loaded<T> =
  | { state: "loading" }
  | { state: "failed"; message: string; status?: number }
  | { state: "ready"; value: T };

/** Loads once (and again on `reload`); the value may be replaced locally after changes. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [result, setResult] = useState<Loaded<T>>({ state: "loading" });
  const reload = useCallback(async () => {
    try {
      setResult({ state: "ready", value: await load() });
    } catch (error) {
      const status = (error as { status?: number }).status;
      setResult({ state: "failed", message: errorText(error), status });
    }
  }, deps);
  useEffect(() => {
    reload();
  }, [reload]);
  const set = (value: T) => setResult({ state: "ready", value });
  return { result, reload, set };
}
