// /admin/consultations: the search form, a consultation's table row and the
// screen's modals (URL state: ?modal=detail | message | delete &
// consultation=…), each a plain form that works without JavaScript.
import { Form, Link, useFetcher, useSubmit } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { EmailText } from "~/components/email-text";
import { FormAlert, SubmitButton, labelledOptions } from "~/components/forms";
import { CONSULTATION_STATUSES } from "~/db/schema-enums";
import {
  ADMIN_NOTES_MAX_LENGTH,
  CONSULTATION_SEARCH_DEBOUNCE_MS,
  CONSULTATION_SEARCH_MAX_LENGTH,
  CONSULTATION_STATUS_LABELS,
  MESSAGE_PREVIEW_LENGTH,
  messagePreview,
  type ConsultationFilters,
} from "~/schemas/consultation";
import type { ConsultationJson } from "~/services/consultations.server";
import { formatDateTime, formatIsoDay } from "~/utils/dates";
import type { FormActionData } from "~/utils/form-reply.server";
import { STAY_ON_PAGE_FIELD } from "~/utils/page-url";
import { useHydrated } from "~/utils/use-hydrated";
import { InlineSelectForm } from "./inline-select-form";
import { ActionButtonForm, FilterSelect } from "./list-parts";
import { RouteModal } from "./route-modal";

/** One fetcher for every status select of the screen (see InlineSelectForm). */
export const CONSULTATION_STATUS_FETCHER_KEY = "consultation-status";
const NOTES_FETCHER_KEY = "consultation-notes";

const statusOptions = labelledOptions(CONSULTATION_STATUSES, CONSULTATION_STATUS_LABELS);

/** The form's fields without the empty ones, so the URL carries only real filters. */
function filledFields(form: HTMLFormElement) {
  const params = new URLSearchParams();
  for (const [name, value] of new FormData(form)) if (typeof value === "string" && value.trim() !== "") params.set(name, value);
  return params;
}

/**
 * Status and search as a GET form ('Buscar' submits it without JavaScript).
 * With JavaScript the status submits on change and the search 500 ms after
 * the last keystroke, replacing the history entry.
 */
export function ConsultationFiltersForm({ filters }: { filters: ConsultationFilters }) {
  const submit = useSubmit();
  const timer = useRef<number | undefined>(undefined);
  const searchRef = useRef<HTMLInputElement>(null);
  const send = (form: HTMLFormElement | null) => {
    if (form) submit(filledFields(form), { method: "get", action: "/admin/consultations", replace: true, preventScrollReset: true });
  };
  // Show the URL's search (back, forward) unless the admin is typing in it.
  useEffect(() => {
    const input = searchRef.current;
    if (input && document.activeElement !== input) input.value = filters.search ?? "";
  }, [filters.search]);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  return (
    <Form method="get" className="admin-toolbar" aria-label="Filtrar consultas" preventScrollReset>
      <FilterSelect
        key={filters.status ?? ""}
        id="consultation-status"
        label="Estado"
        name="status"
        value={filters.status}
        anyLabel="Todos los estados"
        options={statusOptions}
        onChange={(event) => send(event.currentTarget.form)}
      />
      <div className="field search-field">
        <label htmlFor="consultation-search">Buscar</label>
        <input
          ref={searchRef}
          id="consultation-search"
          type="search"
          name="search"
          defaultValue={filters.search ?? ""}
          maxLength={CONSULTATION_SEARCH_MAX_LENGTH}
          placeholder="Nombre, email o mensaje..."
          onChange={(event) => {
            const form = event.currentTarget.form;
            window.clearTimeout(timer.current);
            timer.current = window.setTimeout(() => send(form), CONSULTATION_SEARCH_DEBOUNCE_MS);
          }}
        />
      </div>
      <button type="submit" className="button">
        Buscar
      </button>
    </Form>
  );
}

function VisitLine({ consultation }: { consultation: ConsultationJson }) {
  if (consultation.kind !== "visita") return null;
  return (
    <p className="visit-line">
      <span className="badge badge-visit">Visita</span>{" "}
      {consultation.visitDate ? formatIsoDay(consultation.visitDate) : null}
      {consultation.visitTime ? ` · ${consultation.visitTime}` : null}
    </p>
  );
}

/** The details button: opening a pending consultation marks it read, so it is a POST. */
function OpenDetailsForm({ consultation, label = "Detalles" }: { consultation: ConsultationJson; label?: string }) {
  return (
    <ActionButtonForm
      fields={{ id: consultation._id }}
      intent="open-details"
      label={label}
      ariaLabel={`${label} de la consulta de ${consultation.nombre}`}
      className="button button-secondary button-small"
    />
  );
}

/** The status select of a row or of the details. */
function StatusSelect({ consultation, label }: { consultation: ConsultationJson; label: string }) {
  return (
    <InlineSelectForm
      fetcherKey={CONSULTATION_STATUS_FETCHER_KEY}
      intent="set-status"
      id={consultation._id}
      name="status"
      value={consultation.status}
      options={statusOptions}
      label={label}
    />
  );
}

export function ConsultationRow({ consultation, linkTo }: { consultation: ConsultationJson; linkTo: (modal: "message" | "delete") => string }) {
  const preview = messagePreview(consultation.mensaje);
  const truncated = Array.from(consultation.mensaje).length > MESSAGE_PREVIEW_LENGTH;
  return (
    <tr data-testid="consultation-row" data-id={consultation._id}>
      <td data-label="Fecha">{formatDateTime(consultation.createdAt)}</td>
      <td data-label="Nombre">{consultation.nombre}</td>
      <td data-label="Email">
        <a href={`mailto:${consultation.email}`}>
          <EmailText email={consultation.email} />
        </a>
      </td>
      <td data-label="Teléfono" className="nowrap">
        <a href={`tel:${consultation.telefono.replace(/[^\d+]/g, "")}`}>{consultation.telefono}</a>
      </td>
      <td data-label="Mensaje">
        <VisitLine consultation={consultation} />
        <span data-testid="message-preview">{preview}</span>
        {truncated ? (
          <>
            {" "}
            <Link to={linkTo("message")} aria-label={`Ver más: mensaje completo de ${consultation.nombre}`} preventScrollReset>
              Ver más
            </Link>
          </>
        ) : null}
      </td>
      <td data-label="Estado">
        <StatusSelect consultation={consultation} label={`Estado de la consulta de ${consultation.nombre}`} />
      </td>
      <td data-label="Acciones">
        <div className="actions">
          <OpenDetailsForm consultation={consultation} />
          <Link
            to={linkTo("delete")}
            className="button button-danger button-small"
            aria-label={`Eliminar la consulta de ${consultation.nombre}`}
            preventScrollReset
          >
            Eliminar
          </Link>
        </div>
      </td>
    </tr>
  );
}

export function MessageModal({ consultation, closeTo }: { consultation: ConsultationJson; closeTo: string }) {
  return (
    <RouteModal title={`Mensaje de ${consultation.nombre}`} closeTo={closeTo}>
      <VisitLine consultation={consultation} />
      <p className="message-text" data-testid="full-message">
        {consultation.mensaje}
      </p>
      <div className="modal-actions">
        <OpenDetailsForm consultation={consultation} label="Ver detalles" />
      </div>
    </RouteModal>
  );
}

export function ConsultationDetailModal({ consultation, closeTo }: { consultation: ConsultationJson; closeTo: string }) {
  return (
    <RouteModal title={`Consulta de ${consultation.nombre}`} closeTo={closeTo}>
      <dl className="details">
        <dt>Nombre</dt>
        <dd>{consultation.nombre}</dd>
        <dt>Email</dt>
        <dd>
          <a href={`mailto:${consultation.email}`}>{consultation.email}</a>
        </dd>
        <dt>Teléfono</dt>
        <dd>
          <a href={`tel:${consultation.telefono.replace(/[^\d+]/g, "")}`}>{consultation.telefono}</a>
        </dd>
        <dt>Fecha</dt>
        <dd>{formatDateTime(consultation.createdAt)}</dd>
        {consultation.kind === "visita" ? (
          <>
            <dt>Visita solicitada</dt>
            <dd data-testid="visit-slot">
              {consultation.visitDate ? formatIsoDay(consultation.visitDate) : "Sin fecha"}
              {consultation.visitTime ? ` · ${consultation.visitTime}` : null}
            </dd>
          </>
        ) : null}
        <dt>Estado</dt>
        <dd>
          <StatusSelect consultation={consultation} label="Estado" />
        </dd>
        <dt>Dirección IP</dt>
        <dd>{consultation.ipAddress ?? "Desconocida"}</dd>
      </dl>
      <section className="details-section" aria-labelledby="consultation-message">
        <h3 id="consultation-message">Mensaje</h3>
        <p className="message-text">{consultation.mensaje}</p>
      </section>
      <section className="details-section" aria-labelledby="consultation-notes">
        <h3 id="consultation-notes">Notas del administrador</h3>
        {/* Remounted when the stored notes change, so the field shows them. */}
        <NotesForm key={consultation.adminNotes ?? ""} consultation={consultation} />
      </section>
    </RouteModal>
  );
}

/**
 * The admin's notes: saved when the field loses focus (with JavaScript, when
 * they changed), or with 'Guardar Notas' (without it).
 */
function NotesForm({ consultation }: { consultation: ConsultationJson }) {
  const fetcher = useFetcher<FormActionData>({ key: NOTES_FETCHER_KEY });
  const hydrated = useHydrated();
  const saved = consultation.adminNotes ?? "";
  const [notes, setNotes] = useState(saved);
  const errors = fetcher.state === "idle" ? fetcher.data?.result.error?.[""] : undefined;
  return (
    <fetcher.Form method="post" className="form" preventScrollReset>
      <FormAlert title="No se pudieron guardar las notas" errors={errors} />
      <input type="hidden" name="intent" value="save-notes" />
      <input type="hidden" name="id" value={consultation._id} />
      {hydrated ? <input type="hidden" name={STAY_ON_PAGE_FIELD} value="1" /> : null}
      <div className="field">
        <label htmlFor="consultation-admin-notes">Notas</label>
        <textarea
          id="consultation-admin-notes"
          name="adminNotes"
          rows={4}
          maxLength={ADMIN_NOTES_MAX_LENGTH}
          value={notes}
          onChange={(event) => setNotes(event.currentTarget.value)}
          onBlur={(event) => {
            if (hydrated && notes.trim() !== saved) fetcher.submit(event.currentTarget.form, { preventScrollReset: true });
          }}
          aria-describedby="consultation-notes-hint"
        />
        <small id="consultation-notes-hint" className="muted">
          {hydrated ? "Se guardan al salir del campo." : "Pulsa Guardar Notas para guardarlas."}
        </small>
      </div>
      {hydrated ? null : (
        <div>
          <SubmitButton intent="save-notes" label="Guardar Notas" busyLabel="Guardando..." className="button button-secondary" />
        </div>
      )}
    </fetcher.Form>
  );
}

export function DeleteConsultationModal({ consultation, closeTo, errors }: { consultation: ConsultationJson; closeTo: string; errors?: string[] | null }) {
  return (
    <RouteModal title="Eliminar consulta" closeTo={closeTo}>
      <FormAlert title="No se pudo eliminar la consulta" errors={errors} />
      <p tabIndex={-1} data-autofocus>
        ¿Estás seguro de que quieres eliminar la consulta de {consultation.nombre}?
      </p>
      <p>
        {consultation.email} · {formatDateTime(consultation.createdAt)}. Esta acción no se puede deshacer.
      </p>
      <Form method="post" className="modal-actions" preventScrollReset>
        <input type="hidden" name="id" value={consultation._id} />
        <SubmitButton intent="delete-consultation" label="Eliminar" busyLabel="Eliminando..." className="button button-danger" />
      </Form>
    </RouteModal>
  );
}

export function ConsultationNotFoundModal({ closeTo }: { closeTo: string }) {
  return (
    <RouteModal title="Consulta no encontrada" closeTo={closeTo}>
      <p>La consulta no existe o ha sido eliminada.</p>
    </RouteModal>
  );
}
