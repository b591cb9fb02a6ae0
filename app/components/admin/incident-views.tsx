// /admin/incidents: an incident's card in the list and the screen's modals
// (URL state: ?modal=new | edit | delete & incident=…), each a plain form
// that works without JavaScript.
import { getFormProps, type SubmissionResult } from "@conform-to/react";
import { Form, Link } from "@remix-run/react";
import { FormAlert, InputField, labelledOptions, SelectField, SubmitButton, TextareaField, useSchemaForm } from "~/components/forms";
import { INCIDENT_TYPES, INCIDENT_URGENCIES } from "~/db/schema-enums";
import {
  ADMIN_INCIDENT_STATUSES,
  INCIDENT_CATEGORY_LABELS,
  INCIDENT_SOURCE_LABELS,
  INCIDENT_STATUS_LABELS,
  INCIDENT_TYPE_LABELS,
  IncidentCreateSchema,
  IncidentEditSchema,
  NEXT_INCIDENT_STATUS,
  URGENCY_LABELS,
  incidentTitle,
  shortIncidentId,
} from "~/schemas/incident";
import type { IncidentJson } from "~/services/incidents.server";
import { formatDateTime } from "~/utils/dates";
import { ActionButtonForm } from "./list-parts";
import { RouteModal } from "./route-modal";

export type DoorOption = { id: string; name: string; location: string; doorId: string };

export const doorOptionLabel = (door: Pick<DoorOption, "name" | "location">) => `${door.name} (${door.location})`;

export function IncidentStatusBadge({ status }: { status: IncidentJson["status"] }) {
  return <span className={`badge badge-${status}`}>{INCIDENT_STATUS_LABELS[status]}</span>;
}

export function UrgencyBadge({ urgency }: { urgency: IncidentJson["urgency"] }) {
  return <span className={`badge badge-urgency-${urgency}`}>Urgencia: {URGENCY_LABELS[urgency]}</span>;
}

/** Where it came from and who said so: public (name, floor), resident (name, unit), door (the door). */
function ReporterLine({ incident }: { incident: IncidentJson }) {
  const { reporter } = incident;
  const details =
    incident.source === "public"
      ? [reporter.name, reporter.floor ? `Planta ${reporter.floor}` : null]
      : incident.source === "resident"
        ? [reporter.name, reporter.unit ? `Unidad ${reporter.unit}` : null]
        : [incident.doorName ?? incident.doorId, reporter.name ? `reportada por ${reporter.name}` : null];
  return (
    <p className="incident-source" data-testid="incident-source">
      <span className={`badge badge-source-${incident.source}`}>{INCIDENT_SOURCE_LABELS[incident.source]}</span>{" "}
      {details.filter(Boolean).join(" · ")}
    </p>
  );
}

export function IncidentCard({ incident, linkTo }: { incident: IncidentJson; linkTo: (modal: "edit" | "delete") => string }) {
  const title = incidentTitle(incident);
  const next = NEXT_INCIDENT_STATUS[incident.status];
  const headingId = `incident-${incident._id}`;
  return (
    <article className="card incident-card" aria-labelledby={headingId} data-testid="incident-card" data-incident-id={incident._id}>
      <header className="incident-header">
        <h2 id={headingId}>{title}</h2>
        <span className="muted incident-id" title={incident._id}>
          #{shortIncidentId(incident._id)}
        </span>
      </header>
      <p className="incident-badges">
        <IncidentStatusBadge status={incident.status} /> <UrgencyBadge urgency={incident.urgency} />
      </p>
      <ReporterLine incident={incident} />
      <dl className="details">
        <dt>Tipo</dt>
        <dd>
          {INCIDENT_TYPE_LABELS[incident.type]}
          {incident.category ? ` · ${INCIDENT_CATEGORY_LABELS[incident.category]}` : null}
        </dd>
        {incident.doorName || incident.doorId ? (
          <>
            <dt>Puerta</dt>
            <dd>{incident.doorName ?? incident.doorId}</dd>
          </>
        ) : null}
        {incident.location ? (
          <>
            <dt>Ubicación</dt>
            <dd>{incident.location}</dd>
          </>
        ) : null}
        <dt>Reportada</dt>
        <dd>
          <time dateTime={incident.reportedAt}>{formatDateTime(incident.reportedAt)}</time>
        </dd>
      </dl>
      {incident.description ? <p className="incident-description">{incident.description}</p> : null}
      {incident.photos.length > 0 ? (
        <ul className="incident-photos" aria-label="Fotos">
          {incident.photos.map((photo, index) => (
            <li key={photo.id}>
              <a href={photo.url} target="_blank" rel="noreferrer">
                <img src={photo.url} alt={`Foto ${index + 1} de ${incident.photos.length}`} width={72} height={72} loading="lazy" />
              </a>
            </li>
          ))}
        </ul>
      ) : null}
      <div className="actions">
        <Link to={linkTo("edit")} className="button button-secondary button-small" aria-label={`Editar incidencia ${title}`} preventScrollReset>
          Editar
        </Link>
        {next ? (
          <ActionButtonForm
            fields={{ id: incident._id, status: next }}
            intent="advance-status"
            label={INCIDENT_STATUS_LABELS[next]}
            ariaLabel={`${INCIDENT_STATUS_LABELS[next]}: marcar la incidencia ${title}`}
          />
        ) : null}
        <Link to={linkTo("delete")} className="button button-danger button-small" aria-label={`Eliminar incidencia ${title}`} preventScrollReset>
          Eliminar
        </Link>
      </div>
    </article>
  );
}

const typeOptions = labelledOptions(INCIDENT_TYPES, INCIDENT_TYPE_LABELS);
const urgencyOptions = labelledOptions(INCIDENT_URGENCIES, URGENCY_LABELS);

export function CreateIncidentModal({ doors, closeTo, lastResult }: { doors: DoorOption[]; closeTo: string; lastResult?: SubmissionResult<string[]> }) {
  const [form, fields] = useSchemaForm(IncidentCreateSchema, {
    id: "incident-create",
    lastResult,
    defaultValue: { urgency: "medium" },
  });
  return (
    <RouteModal title="Crear Incidencia" closeTo={closeTo}>
      <Form method="post" {...getFormProps(form)} className="form" preventScrollReset>
        <FormAlert id={form.errorId} title="Error" errors={form.errors} />
        <InputField label="Título" meta={fields.title} data-autofocus />
        <SelectField label="Tipo" meta={fields.type} placeholder="Selecciona un tipo" options={typeOptions} />
        <SelectField
          label="Puerta"
          meta={fields.doorId}
          placeholder={doors.length ? "Selecciona una puerta" : "No hay puertas registradas"}
          options={doors.map((door) => ({ value: door.doorId, label: doorOptionLabel(door) }))}
        />
        <SelectField label="Urgencia" meta={fields.urgency} options={urgencyOptions} />
        <TextareaField label="Descripción (opcional)" meta={fields.description} rows={4} />
        <div>
          <SubmitButton intent="create-incident" label="Crear Incidencia" busyLabel="Creando..." />
        </div>
      </Form>
    </RouteModal>
  );
}

export function EditIncidentModal({ incident, closeTo, lastResult }: { incident: IncidentJson; closeTo: string; lastResult?: SubmissionResult<string[]> }) {
  const settable = (ADMIN_INCIDENT_STATUSES as readonly string[]).includes(incident.status);
  const [form, fields] = useSchemaForm(IncidentEditSchema, {
    id: `incident-edit-${incident._id}`,
    lastResult,
    defaultValue: {
      title: incidentTitle(incident),
      type: incident.type,
      status: settable ? incident.status : "",
      urgency: incident.urgency,
      description: incident.description ?? "",
    },
  });
  return (
    <RouteModal title="Editar Incidencia" closeTo={closeTo}>
      <Form method="post" {...getFormProps(form)} className="form" preventScrollReset>
        <FormAlert id={form.errorId} title="Error" errors={form.errors} />
        <input type="hidden" name="id" value={incident._id} />
        <p className="muted">
          #{shortIncidentId(incident._id)} · {INCIDENT_SOURCE_LABELS[incident.source]}
          {settable ? null : ` · ${INCIDENT_STATUS_LABELS[incident.status]} por quien la reportó`}
        </p>
        <InputField label="Título" meta={fields.title} data-autofocus />
        <SelectField label="Tipo" meta={fields.type} options={typeOptions} />
        <SelectField
          label="Estado"
          meta={fields.status}
          placeholder={settable ? undefined : "Selecciona un estado"}
          options={labelledOptions(ADMIN_INCIDENT_STATUSES, INCIDENT_STATUS_LABELS)}
        />
        <SelectField label="Urgencia" meta={fields.urgency} options={urgencyOptions} />
        <TextareaField label="Descripción (opcional)" meta={fields.description} rows={4} />
        <div>
          <SubmitButton intent="update-incident" label="Guardar Cambios" busyLabel="Guardando..." />
        </div>
      </Form>
    </RouteModal>
  );
}

export function DeleteIncidentModal({ incident, closeTo, lastResult }: { incident: IncidentJson; closeTo: string; lastResult?: SubmissionResult<string[]> }) {
  return (
    <RouteModal title="Eliminar incidencia" closeTo={closeTo}>
      <FormAlert title="Error" errors={lastResult?.error?.[""]} />
      {/* Focus starts on the question, not on the destructive button. */}
      <p tabIndex={-1} data-autofocus>
        ¿Estás seguro de que quieres eliminar esta incidencia?
      </p>
      <p>
        <strong>{incidentTitle(incident)}</strong> (#{shortIncidentId(incident._id)}). Esta acción no se puede deshacer.
      </p>
      <Form method="post" className="modal-actions" preventScrollReset>
        <input type="hidden" name="id" value={incident._id} />
        <SubmitButton intent="delete-incident" label="Eliminar" busyLabel="Eliminando..." className="button button-danger" />
      </Form>
    </RouteModal>
  );
}

export function IncidentNotFoundModal({ closeTo }: { closeTo: string }) {
  return (
    <RouteModal title="Incidencia no encontrada" closeTo={closeTo}>
      <p>La incidencia no existe o ha sido eliminada.</p>
    </RouteModal>
  );
}
