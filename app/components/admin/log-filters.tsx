import { Form, useSubmit } from "@remix-run/react";
import { useEffect, useRef } from "react";
import {
  CREDENTIAL_KIND_LABELS,
  LOG_CREDENTIAL_KINDS,
  LOG_DATE_RANGE_LABELS,
  LOG_DATE_RANGES,
  LOG_SEARCH_MAX_LENGTH,
  LOG_STATUS_LABELS,
  LOG_STATUSES,
  type LogFilters,
} from "~/schemas/access-log";
import { FilterActions } from "./list-parts";

type DoorOption = { id: string; name: string; doorId: string };

/**
 * The log's filters as a GET form: "Filtrar" submits them without
 * JavaScript; with it, changing a select submits at once, together with
 * whatever is typed in "Buscar". Any change starts again at page 1 (the form
 * carries no page). The form stays mounted across its own reloads, so text
 * typed while the page loads is kept; when the filters change from elsewhere
 * (Limpiar, back), the fields follow them, except the one being typed in.
 */
export function LogFiltersForm({ filters, doors, exportHref }: { filters: LogFilters; doors: DoorOption[]; exportHref: string }) {
  const submit = useSubmit();
  const form = useRef<HTMLFormElement>(null);
  const submitOnChange = (event: React.ChangeEvent<HTMLSelectElement>) => submit(event.currentTarget.form, { preventScrollReset: true });
  useEffect(() => {
    const elements = form.current?.elements;
    if (!elements) return;
    for (const name of ["status", "doorId", "dateRange", "search", "credentialKind"] as const) {
      const field = elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | null;
      if (field && field !== document.activeElement) field.value = filters[name] ?? "all";
    }
  }, [filters]);
  return (
    <Form ref={form} method="get" className="admin-toolbar log-filters" aria-label="Filtrar registros" preventScrollReset>
      <div className="field">
        <label htmlFor="log-status">Resultado</label>
        <select id="log-status" name="status" defaultValue={filters.status} onChange={submitOnChange}>
          {LOG_STATUSES.map((value) => (
            <option key={value} value={value}>
              {LOG_STATUS_LABELS[value]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="log-door">Puerta</label>
        <select id="log-door" name="doorId" defaultValue={filters.doorId} onChange={submitOnChange}>
          <option value="">Todas las puertas</option>
          {doors.map((door) => (
            <option key={door.id} value={door.doorId}>
              {door.name} ({door.doorId})
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="log-range">Periodo</label>
        <select id="log-range" name="dateRange" defaultValue={filters.dateRange} onChange={submitOnChange}>
          {LOG_DATE_RANGES.map((value) => (
            <option key={value} value={value}>
              {LOG_DATE_RANGE_LABELS[value]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="log-kind">Credencial</label>
        <select id="log-kind" name="credentialKind" defaultValue={filters.credentialKind ?? "all"} onChange={submitOnChange}>
          {LOG_CREDENTIAL_KINDS.map((value) => (
            <option key={value} value={value}>
              {CREDENTIAL_KIND_LABELS[value]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="log-search">Buscar</label>
        <input
          id="log-search"
          type="search"
          name="search"
          defaultValue={filters.search}
          maxLength={LOG_SEARCH_MAX_LENGTH}
          placeholder="Tarjeta o usuario"
          aria-describedby="log-search-hint"
        />
        <small id="log-search-hint" className="muted">
          Inicio del número de tarjeta o del usuario.
        </small>
      </div>
      <FilterActions clearTo="/admin/logs" exportHref={exportHref} />
    </Form>
  );
}
