// The dashboard's door card and its modals (URL state: ?modal=…&door=…), each
// a plain form that works without JavaScript.
import { getFormProps, getInputProps, type SubmissionResult } from "@conform-to/react";
import { Form, Link } from "@remix-run/react";
import { useState } from "react";
import { doorDisplayTexts } from "~/doors/rules";
import { FormAlert, InputField, SelectField, SubmitButton, TextareaField, useSchemaForm } from "~/components/forms";
import { DOOR_STATUSES, INCIDENT_TYPES, INCIDENT_URGENCIES } from "~/db/schema-enums";
import {
  DOOR_INCIDENT_TYPE_LABELS,
  DOOR_STATUS_LABELS,
  DoorIncidentSchema,
  DoorMessagesSchema,
  DoorSchema,
  URGENCY_LABELS,
} from "~/schemas/door";
import type { DoorJson } from "~/services/doors.server";
import type { FacilityJson } from "~/services/facility-bookings.server";
import { formatDateTime } from "~/utils/dates";
import { useHydrated } from "~/utils/use-hydrated";
import { LcdPreview } from "./lcd-preview";
import { RouteModal } from "./route-modal";

type DoorView = DoorJson;

export function DoorCard({ door, facilities }: { door: DoorView; facilities: FacilityJson[] }) {
  const texts = doorDisplayTexts(door);
  const facility = door.facilityId ? facilities.find((candidate) => candidate._id === door.facilityId) : undefined;
  return (
    <article className="card door-card" aria-labelledby={`door-${door.id}`} data-testid="door-card">
      <h3 id={`door-${door.id}`}>{door.name}</h3>
      <p className="muted" style={{ margin: 0 }}>
        {door.location} · <code>{door.doorId}</code>
      </p>
      <p>
        <span className={`badge badge-${door.status}`}>{DOOR_STATUS_LABELS[door.status]}</span>{" "}
        {door.hardware?.online ? (
          <span className="online">Puente en línea</span>
        ) : (
          <span className="offline">Puente desconectado</span>
        )}
      </p>
      <dl className="details">
        <dt>Último acceso</dt>
        <dd>{door.lastAccessAt ? formatDateTime(door.lastAccessAt) : "Sin accesos"}</dd>
        <dt>Accesos (24 h)</dt>
        <dd>{door.recentActivity}</dd>
        <dt>Mensajes</dt>
        <dd>{door.useCustomMessages ? "Personalizados" : "Predeterminados"}</dd>
        {door.isEntrance ? (
          <>
            <dt>Acceso principal</dt>
            <dd data-testid="door-entrance">Sí</dd>
          </>
        ) : null}
        {facility ? (
          <>
            <dt>Instalación</dt>
            <dd data-testid="door-facility">{facility.name}</dd>
          </>
        ) : null}
      </dl>
      <LcdPreview welcome={texts.welcome} status={texts.status} />
      <div className="actions" style={{ marginTop: ".75rem" }}>
        <Link className="button button-secondary button-small" to={`?modal=edit&door=${door.id}`} preventScrollReset>
          Editar
        </Link>
        <Link className="button button-secondary button-small" to={`?modal=messages&door=${door.id}`} preventScrollReset>
          Mensajes
        </Link>
        <Link className="button button-secondary button-small" to={`?modal=incident&door=${door.id}`} preventScrollReset>
          Reportar incidencia
        </Link>
        <Link className="button button-secondary button-small" to={`?modal=credential&door=${door.id}`} preventScrollReset>
          Credencial
        </Link>
        <Link className="button button-danger button-small" to={`?modal=delete&door=${door.id}`} preventScrollReset>
          Eliminar
        </Link>
      </div>
    </article>
  );
}

export function DoorFormModal({
  door,
  facilities,
  lastResult,
}: {
  door: DoorView | null;
  facilities: FacilityJson[];
  lastResult?: SubmissionResult<string[]>;
}) {
  const intent = door ? "update-door" : "create-door";
  const [form, fields] = useSchemaForm(DoorSchema, {
    id: `door-form-${door?.id ?? "new"}`,
    lastResult,
    defaultValue: door
      ? {
          name: door.name,
          location: door.location,
          doorId: door.doorId,
          description: door.description ?? "",
          status: door.status,
          facilityId: door.facilityId ?? "",
          isEntrance: door.isEntrance ? "on" : undefined,
        }
      : { status: "active" },
  });
  return (
    <RouteModal title={door ? "Editar Puerta" : "Añadir Puerta"} closeTo="/admin">
      <Form method="post" {...getFormProps(form)} className="form" preventScrollReset>
        <FormAlert id={form.errorId} title="Error" errors={form.errors} />
        {door ? <input type="hidden" name="id" value={door.id} /> : null}
        <InputField label="Nombre" meta={fields.name} />
        <InputField label="Ubicación" meta={fields.location} />
        <InputField label="ID de puerta" meta={fields.doorId} hint="El identificador del puente en MQTT: letras, números, - y _." />
        <TextareaField label="Descripción (opcional)" meta={fields.description} rows={2} />
        <SelectField
          label="Estado"
          meta={fields.status}
          options={DOOR_STATUSES.map((value) => ({ value, label: DOOR_STATUS_LABELS[value] }))}
        />
        <SelectField
          label="Instalación (opcional)"
          meta={fields.facilityId}
          placeholder="Ninguna"
          options={facilities.map((facility) => ({ value: facility._id, label: `${facility.name} (${facility.typeLabel})` }))}
          aria-describedby={[`${fields.facilityId.id}-hint`, fields.facilityId.errors ? fields.facilityId.errorId : ""].join(" ").trim()}
        />
        <p id={`${fields.facilityId.id}-hint`} className="muted" style={{ marginTop: "-.5rem" }}>
          Las reservas confirmadas de esta instalación abren la puerta a las tarjetas del residente desde 15 minutos antes hasta el final.
        </p>
        <label className="field" style={{ display: "flex", gap: ".5rem", alignItems: "center" }}>
          <input {...getInputProps(fields.isEntrance, { type: "checkbox" })} aria-describedby={`${fields.isEntrance.id}-hint`} />
          Acceso principal
        </label>
        <p id={`${fields.isEntrance.id}-hint`} className="muted" style={{ marginTop: "-.5rem" }}>
          Una entrada del edificio: las llaves de los huéspedes (PIN y QR) la abren durante su estancia.
        </p>
        <SubmitButton intent={intent} label={door ? "Guardar Cambios" : "Añadir Puerta"} busyLabel="Guardando..." />
      </Form>
    </RouteModal>
  );
}

export function MessagesModal({ door, lastResult }: { door: DoorView; lastResult?: SubmissionResult<string[]> }) {
  const hydrated = useHydrated();
  const [form, fields] = useSchemaForm(DoorMessagesSchema, {
    id: `door-messages-${door.id}`,
    lastResult,
    defaultValue: {
      useCustomMessages: door.useCustomMessages ? "on" : undefined,
      customStatus: door.customStatus ?? "",
      customMessage: door.customMessage ?? "",
    },
  });
  const [status, setStatus] = useState(door.customStatus ?? "");
  const [welcome, setWelcome] = useState(door.customMessage ?? "");
  return (
    <RouteModal title={`Mensajes de ${door.name}`} closeTo="/admin">
      <Form method="post" {...getFormProps(form)} className="form" preventScrollReset>
        <FormAlert id={form.errorId} title="No se pudo actualizar el mensaje" errors={form.errors} />
        <input type="hidden" name="id" value={door.id} />
        <label className="field" style={{ display: "flex", gap: ".5rem", alignItems: "center" }}>
          <input {...getInputProps(fields.useCustomMessages, { type: "checkbox" })} />
          Usar mensajes personalizados
        </label>
        <InputField
          label="Mensaje de estado (máx. 10)"
          meta={fields.customStatus}
          maxLength={hydrated ? 10 : undefined}
          onInput={(event) => setStatus(event.currentTarget.value)}
          hint={hydrated ? `${Array.from(status).length}/10 caracteres` : "Hasta 10 caracteres."}
        />
        <InputField
          label="Mensaje de bienvenida (máx. 16)"
          meta={fields.customMessage}
          maxLength={hydrated ? 16 : undefined}
          onInput={(event) => setWelcome(event.currentTarget.value)}
          hint={hydrated ? `${Array.from(welcome).length}/16 caracteres` : "Hasta 16 caracteres."}
        />
        <SubmitButton intent="set-messages" label="Guardar Mensajes" busyLabel="Guardando..." />
      </Form>
    </RouteModal>
  );
}

export function IncidentModal({ door, lastResult }: { door: DoorView; lastResult?: SubmissionResult<string[]> }) {
  const [form, fields] = useSchemaForm(DoorIncidentSchema, {
    id: `door-incident-${door.id}`,
    lastResult,
    defaultValue: { urgency: "medium" },
  });
  return (
    <RouteModal title={`Reportar incidencia: ${door.name}`} closeTo="/admin">
      <Form method="post" {...getFormProps(form)} className="form" preventScrollReset>
        <FormAlert id={form.errorId} title="No se pudo crear la incidencia" errors={form.errors} />
        <input type="hidden" name="id" value={door.id} />
        <SelectField
          label="Tipo"
          meta={fields.type}
          placeholder="Selecciona un tipo"
          options={INCIDENT_TYPES.map((value) => ({ value, label: DOOR_INCIDENT_TYPE_LABELS[value] }))}
        />
        <SelectField label="Urgencia" meta={fields.urgency} options={INCIDENT_URGENCIES.map((value) => ({ value, label: URGENCY_LABELS[value] }))} />
        <InputField label="Título (opcional)" meta={fields.title} />
        <TextareaField label="Descripción (opcional)" meta={fields.description} rows={4} />
        <SubmitButton intent="report-incident" label="Reportar Incidencia" busyLabel="Enviando..." />
      </Form>
    </RouteModal>
  );
}

export function DeleteModal({ door }: { door: DoorView }) {
  return (
    <RouteModal title="Eliminar puerta" closeTo="/admin">
      <p>¿Estás seguro de que quieres eliminar esta puerta?</p>
      <p>
        <strong>{door.name}</strong> ({door.location}). Sus permisos de tarjetas se eliminarán; el registro de accesos se conserva.
      </p>
      <Form method="post" className="modal-actions" preventScrollReset>
        <input type="hidden" name="id" value={door.id} />
        <SubmitButton intent="delete-door" label="Eliminar" busyLabel="Eliminando..." className="button button-danger" />
      </Form>
    </RouteModal>
  );
}

export function CredentialModal({ door, credential }: { door: DoorView; credential: { username: string; password: string } | null }) {
  return (
    <RouteModal title={`Credencial del puente: ${door.name}`} closeTo="/admin">
      {credential ? (
        <>
          <p>Copia la contraseña ahora: no se volverá a mostrar. La anterior ha dejado de funcionar.</p>
          <dl className="details">
            <dt>Usuario</dt>
            <dd>
              <code data-testid="bridge-username">{credential.username}</code>
            </dd>
            <dt>Contraseña</dt>
            <dd>
              <code data-testid="bridge-password">{credential.password}</code>
            </dd>
          </dl>
        </>
      ) : (
        <>
          <p>
            El puente de esta puerta se conecta al broker MQTT con el usuario <code>{door.doorId}</code>.
            {door.bridgeSecretIssuedAt
              ? ` Credencial emitida el ${formatDateTime(door.bridgeSecretIssuedAt)}.`
              : " Todavía no tiene credencial."}
          </p>
          <p>Generar una nueva contraseña desconecta al puente hasta que se configure con ella.</p>
          <Form method="post" className="modal-actions" preventScrollReset>
            <input type="hidden" name="id" value={door.id} />
            <SubmitButton intent="rotate-credential" label="Generar nueva contraseña" busyLabel="Generando..." />
          </Form>
        </>
      )}
    </RouteModal>
  );
}
