import type { HeaderPair } from "../lib/types.ts";

/** Name/value pairs as a table, repeats and order kept. */
export function PairTable(props: { pairs: HeaderPair[]; label: string; first: string }) {
  if (props.pairs.length === 0) return <p class="muted">None.</p>;
  return (
    <table class="kv" aria-label={props.label}>
      <thead>
        <tr>
          <th scope="col">{props.first}</th>
          <th scope="col">Value</th>
        </tr>
      </thead>
      <tbody>
        {props.pairs.map(([name, value], i) => (
          <tr key={i}>
            <th scope="row">{name}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
