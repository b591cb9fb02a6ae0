// /admin/auditoria: the filters form, an event's table row and its details
// modal (URL state: ?modal=detail&event=…), all plain links and GET forms
// that work without JavaScript.
import { Form, Link, useSubmit } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { labelledOptions } from "~/components/forms";
import {
  AUDIT_ACTION_LABELS,
  AUDIT_ACTIONS,
  AUDIT_ACTOR_MAX_LENGTH,
  AUDIT_ENTITY_LABELS,
  AUDIT_ENTITY_TYPES,
  AUDIT_FIELD_LABELS,
  AUDIT_ROLE_LABELS,
  AUDIT_SEARCH_MAX_LENGTH,
  type AuditFilters,
} from "~/schemas/audit";
import type { AuditEventJson } from "~/services/audit.server";
import { auditDiff } from "~/utils/audit-diff";
import { formatDateTimeSeconds } from "~/utils/dates";
import { DataTable, FilterSelect } from "./list-parts";
import { RouteModal } from "./route-modal";

const entityOptions = labelledOptions(AUDIT_ENTITY_TYPES, AUDIT_ENTITY_LABELS);
const actionOptions = labelledOptions(AUDIT_ACTIONS, AUDIT_ACTION_LABELS);

export function labelOf(labels: Record<string, string>, key: string) {
  return labels[key] ?? key;
}

const isDay = (value: string | undefined) => (value && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : "");

/**
 * The filters as a GET form: "Filtrar" submits them without JavaScript; with
 * it, a select or a date submits at once, with whatever is typed. Any change
 * starts again at page 1 (the form carries no page).
 */
export function AuditFiltersForm({ filters, exportHref }: { filters: AuditFilters; exportHref: string }) {
  const submit = useSubmit();
  const form = useRef<HTMLFormElement>(null);
  const submitOnChange = (event: React.ChangeEvent<HTMLSelectElement | HTMLInputElement>) => submit(event.currentTarget.form, { preventScrollReset: true });
  // The fields follow the URL (Limpiar, back) except the one being typed in.
  useEffect(() => {
    const elements = form.current?.elements;
    if (!elements) return;
    const values = { ...filters, from: isDay(filters.from), to: isDay(filters.to) };
    for (const name of ["actor", "entityType", "action", "from", "to", "search"] as const) {
      const field = elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | null;
      if (field && field !== document.activeElement) field.value = values[name] ?? "";
    }
  }, [filters]);
  return (
    <Form ref={form} method="get" className="admin-toolbar" aria-label="Filtrar eventos" preventScrollReset>
      <div className="field">
        <label htmlFor="audit-actor">Usuario</label>
        <input id="audit-actor" type="search" name="actor" defaultValue={filters.actor ?? ""} maxLength={AUDIT_ACTOR_MAX_LENGTH} placeholder="Inicio del usuario" />
      </div>
      <FilterSelect id="audit-entity" label="Tipo" name="entityType" value={filters.entityType} anyLabel="Todos los tipos" options={entityOptions} onChange={submitOnChange} />
      <FilterSelect id="audit-action" label="Acción" name="action" value={filters.action} anyLabel="Todas las acciones" options={actionOptions} onChange={submitOnChange} />
      <div className="field">
        <label htmlFor="audit-from">Desde</label>
        <input id="audit-from" type="date" name="from" defaultValue={isDay(filters.from)} onChange={submitOnChange} />
      </div>
      <div className="field">
        <label htmlFor="audit-to">Hasta</label>
        <input id="audit-to" type="date" name="to" defaultValue={isDay(filters.to)} onChange={submitOnChange} />
      </div>
      <div className="field">
        <label htmlFor="audit-search">Buscar</label>
        <input
          id="audit-search"
          type="search"
          name="search"
          defaultValue={filters.search ?? ""}
          maxLength={AUDIT_SEARCH_MAX_LENGTH}
          placeholder="Resumen, ID, IP o campos"
        />
      </div>
      <button type="submit" className="button">
        Filtrar
      </button>
      <Link to="/admin/auditoria" className="button button-secondary" preventScrollReset>
        Limpiar
      </Link>
      <a href={exportHref} className="button button-secondary" download>
        Exportar CSV
      </a>
    </Form>
  );
}

export const AUDIT_COLUMNS = ["Fecha", "Usuario", "Acción", "Resumen", "IP", "Detalles"];

export function AuditRow({ event, detailsTo }: { event: AuditEventJson; detailsTo: string }) {
  return (
    <tr data-testid="audit-row" data-id={event._id}>
      <td data-label="Fecha" className="nowrap">
        {formatDateTimeSeconds(event.at)}
      </td>
      <td data-label="Usuario">
        {event.actor.username}
        <br />
        <small className="muted">{labelOf(AUDIT_ROLE_LABELS, event.actor.role)}</small>
      </td>
      <td data-label="Acción">{labelOf(AUDIT_ACTION_LABELS, event.action)}</td>
      <td data-label="Resumen">{event.summary}</td>
      <td data-label="IP" className="nowrap">
        {event.ip ?? "—"}
      </td>
      <td data-label="Detalles">
        <Link to={detailsTo} className="button button-secondary button-small" aria-label={`Detalles del evento ${event._id}`} preventScrollReset>
          Detalles
        </Link>
      </td>
    </tr>
  );
}

export function AuditDetailModal({ event, closeTo }: { event: AuditEventJson; closeTo: string }) {
  const rows = auditDiff(event.before, event.after);
  return (
    <RouteModal title={`Evento ${event._id}`} closeTo={closeTo}>
      <dl className="details">
        <dt>Fecha</dt>
        <dd>{formatDateTimeSeconds(event.at)}</dd>
        <dt>Usuario</dt>
        <dd>
          {event.actor.username} ({labelOf(AUDIT_ROLE_LABELS, event.actor.role)})
        </dd>
        <dt>Dirección IP</dt>
        <dd>{event.ip ?? "—"}</dd>
        <dt>Acción</dt>
        <dd>{labelOf(AUDIT_ACTION_LABELS, event.action)}</dd>
        <dt>Tipo</dt>
        <dd>
          {labelOf(AUDIT_ENTITY_LABELS, event.entityType)}
          {event.entityId ? ` · ${event.entityId}` : null}
        </dd>
      </dl>
      <section className="details-section" aria-labelledby="audit-summary">
        <h3 id="audit-summary">Resumen</h3>
        <p className="message-text">{event.summary}</p>
      </section>
      <section className="details-section" aria-labelledby="audit-changes">
        <h3 id="audit-changes">Antes y después</h3>
        {rows.length === 0 ? (
          <p className="muted">Este evento no registra campos.</p>
        ) : (
          <DataTable caption="Campos antes y después del cambio" columns={["Campo", "Antes", "Después"]}>
            {rows.map((row) => (
              <tr key={row.field} data-testid="audit-diff-row" className={row.changed ? "audit-changed" : undefined}>
                <td data-label="Campo">
                  {labelOf(AUDIT_FIELD_LABELS, row.field)}
                  {row.changed ? <span className="visually-hidden"> (cambiado)</span> : null}
                </td>
                <td data-label="Antes">{row.before}</td>
                <td data-label="Después">{row.after}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
    </RouteModal>
  );
}

export function AuditNotFoundModal({ closeTo }: { closeTo: string }) {
  return (
    <RouteModal title="Evento no encontrado" closeTo={closeTo}>
      <p>El evento no existe o ya se ha purgado.</p>
    </RouteModal>
  );
}
