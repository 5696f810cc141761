import type { ComponentChildren } from "preact";

export interface Column<T> {
  label: string;
  cell: (row: T) => ComponentChildren;
}

/**
 * A real table (header cells with `scope`); below 640 px CSS stacks each row as label/value
 * pairs, reading each cell's label from `data-label`.
 */
export function DataTable<T>(props: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
}) {
  return (
    <table class="data-table">
      <caption class="visually-hidden">{props.caption}</caption>
      <thead>
        <tr>
          {props.columns.map((c) => (
            <th scope="col" key={c.label}>
              {c.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr key={props.rowKey(row)}>
            {props.columns.map((c) => (
              <td key={c.label} data-label={c.label}>
                {c.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
