import { useEffect, useState } from "preact/hooks";
import { formatFullDate, formatRelative } from "./format.ts";

/** A relative time that shows the exact time on hover and to screen readers. */
export function Time(props: { iso: string | null | undefined; now?: number }) {
  if (!props.iso) return <span>never</span>;
  return (
    <time dateTime={props.iso} title={formatFullDate(props.iso)}>
      {formatRelative(props.iso, props.now ?? Date.now())}
    </time>
  );
}

/** Re-renders every `ms` so relative times stay true. */
export function useNow(ms = 15_000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}
