import { useEffect, useState } from "preact/hooks";

/**
 * `value` once it has stopped changing for `ms`: what live checks key their calls by, so typing
 * sends one request per pause instead of one per keystroke.
 */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    if (Object.is(value, settled)) return;
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms, settled]);
  return settled;
}
