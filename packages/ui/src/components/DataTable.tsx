/** A captioned table that scrolls sideways on a phone, with an empty-state row. */
import type { ReactNode } from 'react';

export interface Column<T> {
  key: string;
  header: ReactNode;
  render(row: T): ReactNode;
}

export interface DataTableProps<T> {
  caption: ReactNode;
  columns: Column<T>[];
  rows: T[];
  rowKey(row: T): string;
  empty: ReactNode;
}

export function DataTable<T>({ caption, columns, rows, rowKey, empty }: DataTableProps<T>) {
  return (
    <div className="table-wrap">
      <table className="table">
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.key} scope="col">
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length} className="table-empty">
                {empty}
              </td>
            </tr>
          ) : (
            rows.map((r) => (
              <tr key={rowKey(r)}>
                {columns.map((c) => (
                  <td key={c.key} data-label={typeof c.header === 'string' ? c.header : undefined}>
                    {c.render(r)}
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}
