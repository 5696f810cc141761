import { linePath, niceMax, summarizeMs } from "./scale.ts";

/** A small response-time line (inline SVG, coloured by CSS), summarized in words for readers. */
export function Sparkline(props: { values: readonly (number | null)[]; label: string }) {
  const present = props.values.filter((v): v is number => v !== null);
  const top = niceMax(Math.max(0, ...present));
  return (
    <svg
      class="sparkline"
      viewBox="0 0 100 24"
      preserveAspectRatio="none"
      role="img"
      aria-label={`${props.label}: ${summarizeMs(props.values)}`}
    >
      <line
        class="spark-base"
        x1="0"
        y1="23.5"
        x2="100"
        y2="23.5"
        stroke="currentColor"
        vector-effect="non-scaling-stroke"
      />
      <path
        d={linePath(props.values, 100, 22, top)}
        transform="translate(0 1)"
        fill="none"
        stroke="currentColor"
        stroke-width="1.5"
        vector-effect="non-scaling-stroke"
      />
    </svg>
  );
}
