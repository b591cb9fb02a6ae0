// The portal's incident modals (URL state): report (with photos), edit and
// cancel, each a plain form that works without JavaScript.
import { getFormProps, type SubmissionResult } from "@conform-to/react";
import { Form } from "@remix-run/react";
import { RouteModal } from "~/components/admin/route-modal";
import { type AnyField, ErrorList, FormAlert, InputField, SelectField, SubmitButton, TextareaField, useSchemaForm } from "~/components/forms";
import { INCIDENT_CATEGORIES, INCIDENT_URGENCIES } from "~/db/schema-enums";
import { INCIDENT_CATEGORY_LABELS, URGENCY_LABELS } from "~/schemas/incident";
import {
  MAX_INCIDENT_PHOTOS,
  PHOTO_ACCEPT,
  ResidentIncidentFormSchema,
  ResidentIncidentSchema,
} from "~/schemas/resident-incident";
import type { ResidentIncidentJson } from "~/services/resident-incidents.server";

const CLOSE_TO = "/portal";

function IncidentFields({ fields }: { fields: Record<"title" | "category" | "location" | "description" | "priority", AnyField> }) {
  return (
    <>
      <InputField label="Título" meta={fields.title} />
      <div className="field-row">
        <SelectField
          label="Categoría"
          meta={fields.category}
          placeholder="Selecciona una categoría"
          options={INCIDENT_CATEGORIES.map((value) => ({ value, label: INCIDENT_CATEGORY_LABELS[value] }))}
        />
        <SelectField
          label="Prioridad"
          meta={fields.priority}
          options={INCIDENT_URGENCIES.map((value) => ({ value, label: URGENCY_LABELS[value] }))}
        />
      </div>
      <InputField label="Ubicación" meta={fields.location} placeholder="p. ej. Baño de la unidad" />
      <TextareaField label="Descripción" meta={fields.description} rows={4} />
    </>
  );
}

export function ReportIncidentModal({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const [form, fields] = useSchemaForm(ResidentIncidentFormSchema, {
    id: "report-incident",
    lastResult,
    defaultValue: { priority: "medium" },
  });
  const photosHint = `${fields.photos.id}-hint`;
  return (
    <RouteModal title="Reportar Incidencia" closeTo={CLOSE_TO}>
      <Form method="post" encType="multipart/form-data" {...getFormProps(form)} className="form" preventScrollReset>
        <FormAlert id={form.errorId} title="No se pudo enviar el reporte" errors={form.errors} />
        <IncidentFields fields={fields} />
        <div className="field">
          <label htmlFor={fields.photos.id}>Fotos (opcional)</label>
          <input
            id={fields.photos.id}
            name={fields.photos.name}
            type="file"
            multiple
            accept={PHOTO_ACCEPT}
            aria-invalid={fields.photos.errors ? true : undefined}
            aria-describedby={[photosHint, fields.photos.errors ? fields.photos.errorId : ""].join(" ").trim()}
          />
          <small id={photosHint} className="muted">
            Hasta {MAX_INCIDENT_PHOTOS} fotos JPEG, PNG o WebP de 5 MB como máximo cada una.
          </small>
          <ErrorList id={fields.photos.errorId} errors={fields.photos.errors} />
        </div>
        <SubmitButton intent="report-incident" label="Enviar Reporte" busyLabel="Enviando..." />
      </Form>
    </RouteModal>
  );
}

export function EditIncidentModal({ incident, lastResult }: { incident: ResidentIncidentJson; lastResult?: SubmissionResult<string[]> }) {
  const [form, fields] = useSchemaForm(ResidentIncidentSchema, {
    id: `edit-incident-${incident._id}`,
    lastResult,
    defaultValue: {
      title: incident.title,
      category: incident.category ?? "",
      location: incident.location ?? "",
      description: incident.description ?? "",
      priority: incident.priority,
    },
  });
  return (
    <RouteModal title="Editar Incidencia" closeTo={CLOSE_TO}>
      {incident.editable ? (
        <Form method="post" {...getFormProps(form)} className="form" preventScrollReset>
          <FormAlert id={form.errorId} title="No se pudo actualizar la incidencia" errors={form.errors} />
          <input type="hidden" name="id" value={incident._id} />
          <IncidentFields fields={fields} />
          <SubmitButton intent="edit-incident" label="Guardar Cambios" busyLabel="Guardando..." />
        </Form>
      ) : (
        <p>Solo se pueden editar incidencias abiertas.</p>
      )}
    </RouteModal>
  );
}

export function CancelIncidentModal({ incident, lastResult }: { incident: ResidentIncidentJson; lastResult?: SubmissionResult<string[]> }) {
  const errors = lastResult?.error?.[""] ?? null;
  return (
    <RouteModal title="Cancelar incidencia" closeTo={CLOSE_TO}>
      <FormAlert title="No se pudo cancelar la incidencia" errors={errors} />
      {incident.editable ? (
        <>
          <p>¿Seguro que quieres cancelar esta incidencia?</p>
          <p>
            <strong>{incident.title}</strong> ({incident.location})
          </p>
          <Form method="post" className="modal-actions" preventScrollReset>
            <input type="hidden" name="id" value={incident._id} />
            <SubmitButton intent="cancel-incident" label="Sí, cancelar incidencia" busyLabel="Cancelando..." className="button button-danger" />
          </Form>
        </>
      ) : (
        <p>Solo se pueden cancelar incidencias abiertas.</p>
      )}
    </RouteModal>
  );
}
