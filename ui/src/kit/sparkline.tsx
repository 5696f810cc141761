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
