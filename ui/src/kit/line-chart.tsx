import { formatMs, linePath, niceMax, summarizeMs } from "./scale.ts";

export interface ChartPoint {
  /** What the point stands for, in words ("14:00", "3 Nov"). */
  label: string;
  value: number | null;
}

const WIDTH = 600;
const HEIGHT = 160;

/**
 * A response-time line chart (inline SVG, no library): `role="img"` with a summary in words,
 * the axis top and ends labelled, and "Show as table" for every point.
 */
export function LineChart(props: { points: ChartPoint[]; title: string }) {
  const values = props.points.map((p) => p.value);
  const present = values.filter((v): v is number => v !== null);
  const top = niceMax(Math.max(0, ...present));
  const summary = `${props.title}: ${summarizeMs(values)}`;
  return (
    <figure class="line-chart">
      <div class="chart-frame">
        <span class="chart-top" aria-hidden="true">
          {formatMs(top)}
        </span>
        <svg
          viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
          preserveAspectRatio="none"
          role="img"
          aria-label={summary}
          data-testid="chart-plot"
        >
          <line class="chart-grid" x1="0" y1="0.5" x2={WIDTH} y2="0.5" stroke="currentColor" />
          <line
            class="chart-grid"
            x1="0"
            y1={HEIGHT - 0.5}
            x2={WIDTH}
            y2={HEIGHT - 0.5}
            stroke="currentColor"
          />
          <path
            class="chart-line"
            d={linePath(values, WIDTH, HEIGHT - 4, top)}
            transform="translate(0 2)"
            fill="none"
            stroke="currentColor"
            stroke-width="2"
            vector-effect="non-scaling-stroke"
          />
        </svg>
        <span class="chart-ends" aria-hidden="true">
          <span>{props.points[0]?.label ?? ""}</span>
          <span>{props.points.at(-1)?.label ?? ""}</span>
        </span>
      </div>
      <figcaption>{summary}</figcaption>
      <details>
        <summary>Show as table</summary>
        <table class="data-table">
          <caption class="visually-hidden">{props.title}</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Average response</th>
            </tr>
          </thead>
          <tbody>
            {props.points.map((p) => (
              <tr key={p.label}>
                <td>{p.label}</td>
                <td>{p.value === null ? "—" : formatMs(p.value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
