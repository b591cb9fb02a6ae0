import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { RouteModal } from "~/components/admin/route-modal";
import { ActivityChart } from "~/components/admin/activity-chart";
import { DoorAlarmsPanel } from "~/components/admin/door-alarms";
import { CredentialModal, DeleteModal, DoorCard, DoorFormModal, IncidentModal, MessagesModal } from "~/components/admin/door-modals";
import { StatTiles } from "~/components/admin/stat-tiles";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { FormAlert, resultFor, SubmitButton } from "~/components/forms";
import { formatDateTime } from "~/utils/dates";
import { requireAdmin } from "~/utils/auth.server";
import { dashboardAction, loadDashboard } from "./admin._index.server";
import { keepActionCacheControl } from "~/utils/headers";
import { pageMeta } from "~/utils/meta";

export const meta = pageMeta("Dashboard");

// A new bridge secret is shown in the action's answer only: it says no-store.
export const headers = keepActionCacheControl;

// Rendered once per distinct data (ADR 0008): loaders and guards still run on every request.

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return loadDashboard(request);
}

export async function action({ request }: ActionFunctionArgs) {
  const admin = await requireAdmin(request);
  return dashboardAction(request, admin);
}

export default function Dashboard() {
  const { stats, doors, facilities, activity, modal, lockdown, alarms, untrustedProxy } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const door = modal.doorRowId ? (doors.find((d) => d._id === modal.doorRowId) ?? null) : null;
  const credential = actionData && "credential" in actionData ? actionData.credential : null;
  return (
    <>
      <h1>Dashboard</h1>
      {untrustedProxy ? (
        <div className="alert alert-warning" role="alert" data-testid="untrusted-proxy-warning">
          <strong>La aplicación está detrás de un proxy y TRUST_PROXY está desactivado.</strong> Las solicitudes llegan con la cabecera
          X-Forwarded-For, pero se atribuyen todas a la dirección del proxy: quien falle varias veces al iniciar sesión puede bloquear el
          acceso a todos. Configura TRUST_PROXY con el número de proxies delante de la aplicación (por ejemplo, TRUST_PROXY=1) y reiníciala.
        </div>
      ) : null}
      {lockdown.active ? (
        <div className="alert alert-error" role="alert" data-testid="lockdown-banner">
          <strong>Bloqueo general activo</strong> desde {formatDateTime(lockdown.since!)}: {lockdown.reason}. Solo abren las tarjetas de
          emergencia.
          <Form method="post" className="inline-form" preventScrollReset>
            <SubmitButton intent="lift-lockdown" label="Levantar bloqueo" busyLabel="Levantando..." className="button button-secondary" />
          </Form>
        </div>
      ) : (
        <div className="admin-toolbar">
          <Link to="?modal=lockdown" className="button button-danger" preventScrollReset>
            Bloqueo general
          </Link>
        </div>
      )}
      <DoorAlarmsPanel alarms={alarms} />
      <div className="stat-groups">
        <StatTiles
          label="Estadísticas de puertas"
          tiles={[
            { label: "Puertas", value: stats.totalDoors },
            { label: "Activas", value: stats.activeDoors, tone: "success" },
            { label: "Mantenimiento", value: stats.maintenanceDoors, tone: "warning" },
            { label: "Emergencia", value: stats.emergencyDoors, tone: "error" },
          ]}
        />
        <StatTiles
          label="Accesos de las últimas 24 horas"
          tiles={[
            { label: "Accesos (24 h)", value: stats.recentActivity.total },
            { label: "Concedidos", value: stats.recentActivity.successful, tone: "success" },
            { label: "Denegados", value: stats.recentActivity.failed, tone: "error" },
          ]}
        />
      </div>
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
            <DoorCard key={item.id} door={item} facilities={facilities} />
          ))}
        </div>
      </section>
      {modal.name === "lockdown" && !lockdown.active ? (
        <RouteModal title="Bloqueo general" closeTo="/admin">
          <FormAlert title="Error en el bloqueo general" errors={resultFor(actionData, "start-lockdown")?.error?.[""] ?? resultFor(actionData, "start-lockdown")?.error?.reason} />
          <p tabIndex={-1} data-autofocus>
            Todas las puertas pasarán a emergencia, mostrarán «CERRADO» y solo abrirán las tarjetas de emergencia. ¿Activar el bloqueo general?
          </p>
          <Form method="post" className="form" preventScrollReset>
            <div className="field">
              <label htmlFor="lockdown-reason">Motivo</label>
              <input id="lockdown-reason" name="reason" required maxLength={200} />
            </div>
            <div className="modal-actions">
              <SubmitButton intent="start-lockdown" label="Activar bloqueo general" busyLabel="Activando..." className="button button-danger" />
            </div>
          </Form>
        </RouteModal>
      ) : null}
      {modal.name === "new" ? <DoorFormModal door={null} facilities={facilities} lastResult={resultFor(actionData, "create-door")} /> : null}
      {door && modal.name === "edit" ? <DoorFormModal door={door} facilities={facilities} lastResult={resultFor(actionData, "update-door")} /> : null}
      {door && modal.name === "messages" ? <MessagesModal door={door} lastResult={resultFor(actionData, "set-messages")} /> : null}
      {door && modal.name === "incident" ? <IncidentModal door={door} lastResult={resultFor(actionData, "report-incident")} /> : null}
      {door && modal.name === "delete" ? <DeleteModal door={door} /> : null}
      {door && modal.name === "credential" ? <CredentialModal door={door} credential={credential} /> : null}
    </>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
