import { getFormProps, getInputProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { useState } from "react";
import { doorDisplayTexts } from "~/access/rules";
import { ActivityChart } from "~/components/admin/activity-chart";
import { LcdPreview } from "~/components/admin/lcd-preview";
import { RouteModal } from "~/components/admin/route-modal";
import { StatTiles } from "~/components/admin/stat-tiles";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { FormAlert, InputField, SelectField, SubmitButton, TextareaField } from "~/components/forms";
import { Toaster } from "~/components/toaster";
import { DOOR_STATUSES, INCIDENT_TYPES, INCIDENT_URGENCIES } from "~/db/schema-enums";
import {
  DOOR_INCIDENT_TYPE_LABELS,
  DOOR_STATUS_LABELS,
  DoorIncidentSchema,
  DoorMessagesSchema,
  DoorSchema,
  URGENCY_LABELS,
} from "~/schemas/door";
import { dashboardAction, loadDashboard } from "~/services/door-admin.server";
import { formatDateTime } from "~/utils/dates";
import { requireAdmin } from "~/utils/auth.server";
import type { Toast } from "~/utils/session.server";
import { useHydrated } from "~/utils/use-hydrated";

export const meta: MetaFunction = () => [{ title: "Dashboard · Sistema de Gestión de Accesos" }];

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return loadDashboard(request);
}

export async function action({ request }: ActionFunctionArgs) {
  const admin = await requireAdmin(request);
  return dashboardAction(request, admin);
}

type DashboardData = Awaited<ReturnType<typeof loadDashboard>>;
type DoorView = DashboardData["doors"][number];

export default function Dashboard() {
  const { stats, doors, activity, modal } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const door = modal.doorId ? (doors.find((d) => d.id === modal.doorId) ?? null) : null;
  return (
    <>
      <h1>Dashboard</h1>
      <Toaster toast={actionData && "toast" in actionData ? (actionData.toast as Toast) : null} />
      <StatTiles
        label="Estadísticas de puertas"
        tiles={[
          { label: "Puertas", value: stats.totalDoors },
          { label: "Activas", value: stats.activeDoors, tone: "success" },
          { label: "Mantenimiento", value: stats.maintenanceDoors, tone: "warning" },
          { label: "Emergencia", value: stats.emergencyDoors, tone: "error" },
          { label: "Accesos (24 h)", value: stats.recentActivity.total },
          { label: "Concedidos", value: stats.recentActivity.successful, tone: "success" },
          { label: "Denegados", value: stats.recentActivity.failed, tone: "error" },
        ]}
      />
      <section aria-labelledby="activity-title" className="card">
        <h2 id="activity-title">Actividad de las últimas 24 horas</h2>
        <ActivityChart hours={activity} />
      </section>
      <section aria-labelledby="doors-title">
        <div className="admin-toolbar">
          <h2 id="doors-title" style={{ margin: 0 }}>
            Puertas
          </h2>
          <Link to="?modal=new" className="button" preventScrollReset>
            Añadir Puerta
          </Link>
        </div>
        {doors.length === 0 ? <p className="muted">No hay puertas registradas.</p> : null}
        <div className="door-grid">
          {doors.map((item) => (
            <DoorCard key={item.id} door={item} />
          ))}
        </div>
      </section>
      {modal.name === "new" ? <DoorFormModal door={null} lastResult={resultFor(actionData, "create-door")} /> : null}
      {door && modal.name === "edit" ? <DoorFormModal door={door} lastResult={resultFor(actionData, "update-door")} /> : null}
      {door && modal.name === "messages" ? <MessagesModal door={door} lastResult={resultFor(actionData, "set-messages")} /> : null}
      {door && modal.name === "incident" ? <IncidentModal door={door} lastResult={resultFor(actionData, "report-incident")} /> : null}
      {door && modal.name === "delete" ? <DeleteModal door={door} /> : null}
      {door && modal.name === "credential" ? (
        <CredentialModal door={door} credential={actionData && "credential" in actionData ? actionData.credential : null} />
      ) : null}
    </>
  );
}

function resultFor(actionData: unknown, intent: string): SubmissionResult<string[]> | undefined {
  const value = actionData as { intent?: string; result?: SubmissionResult<string[]> } | undefined;
  return value?.intent === intent ? value.result : undefined;
}

function DoorCard({ door }: { door: DoorView }) {
  const texts = doorDisplayTexts(door);
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

function DoorFormModal({ door, lastResult }: { door: DoorView | null; lastResult?: SubmissionResult<string[]> }) {
  const intent = door ? "update-door" : "create-door";
  const [form, fields] = useForm({
    id: `door-form-${door?.id ?? "new"}`,
    lastResult,
    defaultValue: door
      ? { name: door.name, location: door.location, doorId: door.doorId, description: door.description ?? "", status: door.status }
      : { status: "active" },
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: DoorSchema }),
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
        <SubmitButton intent={intent} label={door ? "Guardar Cambios" : "Añadir Puerta"} busyLabel="Guardando..." />
      </Form>
    </RouteModal>
  );
}

function MessagesModal({ door, lastResult }: { door: DoorView; lastResult?: SubmissionResult<string[]> }) {
  const hydrated = useHydrated();
  const [form, fields] = useForm({
    id: `door-messages-${door.id}`,
    lastResult,
    defaultValue: {
      useCustomMessages: door.useCustomMessages ? "on" : undefined,
      customStatus: door.customStatus ?? "",
      customMessage: door.customMessage ?? "",
    },
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: DoorMessagesSchema }),
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

function IncidentModal({ door, lastResult }: { door: DoorView; lastResult?: SubmissionResult<string[]> }) {
  const [form, fields] = useForm({
    id: `door-incident-${door.id}`,
    lastResult,
    defaultValue: { urgency: "medium" },
    shouldValidate: "onSubmit",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: DoorIncidentSchema }),
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

function DeleteModal({ door }: { door: DoorView }) {
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

function CredentialModal({ door, credential }: { door: DoorView; credential: { username: string; password: string } | null }) {
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

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
