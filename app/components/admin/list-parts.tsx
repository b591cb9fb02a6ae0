// Small pieces the admin's list screens share: a filter select of a GET
// form, a data table, and a one-button POST form for a row's action.
import { Form, Link } from "@remix-run/react";
import type { ReactNode } from "react";

/** A select of a filter form; the empty value is "any" (`anyLabel`). */
export function FilterSelect({
  id,
  label,
  name,
  value,
  anyLabel,
  options,
  onChange,
}: {
  id: string;
  label: string;
  name: string;
  value: string | undefined;
  anyLabel: string;
  options: ReadonlyArray<{ value: string; label: string }>;
  onChange?: (event: React.ChangeEvent<HTMLSelectElement>) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} name={name} defaultValue={value ?? ""} onChange={onChange}>
        <option value="">{anyLabel}</option>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/**
 * A table with a caption for screen readers and plain column headers;
 * `children` are its rows, whose cells carry their column's name in
 * `data-label` so that below 768 px each row shows as a card.
 */
export function DataTable({ caption, columns, busy, children }: { caption: string; columns: readonly string[]; busy?: boolean; children: ReactNode }) {
  return (
    <div className="table-wrap" aria-busy={busy}>
      <table className="data stack-on-phone">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/**
 * A row's action as a one-button POST form (works without JavaScript): the
 * hidden `fields`, and the `intent` on the button. `ariaLabel` names what it
 * acts on and starts with the visible label.
 */
export function ActionButtonForm({
  fields,
  intent,
  label,
  ariaLabel,
  className = "button button-small",
}: {
  fields: Record<string, string>;
  intent: string;
  label: string;
  ariaLabel: string;
  className?: string;
}) {
  return (
    <Form method="post" className="inline-form" preventScrollReset>
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <button type="submit" name="intent" value={intent} className={className} aria-label={ariaLabel}>
        {label}
      </button>
    </Form>
  );
}

/** A filter form's last row: apply, clear (back to the bare list) and download the filtered rows as CSV. */
export function FilterActions({ clearTo, exportHref }: { clearTo: string; exportHref: string }) {
  return (
    <>
      <button type="submit" className="button">
        Filtrar
      </button>
      <Link to={clearTo} className="button button-secondary" preventScrollReset>
        Limpiar
      </Link>
      <a href={exportHref} className="button button-secondary" download>
        Exportar CSV
      </a>
    </>
  );
}
