import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useLocation } from "@remix-run/react";
import {
  CreateIncidentModal,
  DeleteIncidentModal,
  EditIncidentModal,
  IncidentCard,
  IncidentNotFoundModal,
  doorOptionLabel,
} from "~/components/admin/incident-views";
import { FilterSelect } from "~/components/admin/list-parts";
import { Pagination } from "~/components/admin/pagination";
import { StatTiles } from "~/components/admin/stat-tiles";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { FormAlert, labelledOptions, resultFor } from "~/components/forms";
import { INCIDENT_STATUSES, INCIDENT_TYPES, INCIDENT_URGENCIES } from "~/db/schema-enums";
import { INCIDENT_STATUS_LABELS, INCIDENT_TYPE_LABELS, URGENCY_LABELS } from "~/schemas/incident";
import { requireAdmin } from "~/utils/auth.server";
import type { FormActionData } from "~/utils/form-reply.server";
import { pageMeta } from "~/utils/meta";
import { withSearchParams } from "~/utils/page-url";
import { incidentsAction, loadIncidentsPage } from "./admin.incidents.server";

export const meta = pageMeta("Gestión de Incidencias");

// Rendered once per distinct data (ADR 0008): loaders and guards still run on every request.

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return loadIncidentsPage(request);
}

export async function action({ request }: ActionFunctionArgs) {
  const admin = await requireAdmin(request);
  return incidentsAction(request, admin);
}

export default function IncidentsPage() {
  const { filters, doors, incidents, stats, total, page, pages, modal } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>() as FormActionData | undefined;
  const { search } = useLocation();
  const here = (changes: Record<string, string | null>) => withSearchParams("/admin/incidents", search, changes);
  const listUrl = here({ modal: null, incident: null });
  const filtered = Object.keys(filters).length > 0;
  // A refused advance or delete has no form of its own left open: the page says why.
  const listFailure = actionData?.intent === "advance-status" ? actionData.result.error?.[""] : undefined;
  return (
    <>
      <h1>Gestión de Incidencias</h1>
      <StatTiles
        label={filtered ? "Estadísticas de las incidencias filtradas" : "Estadísticas de incidencias"}
        tiles={[
          { label: "Total", value: stats.total },
          { label: "Abiertas", value: stats.open, tone: "error" },
          { label: "En Progreso", value: stats.inProgress, tone: "warning" },
          { label: "Resueltas", value: stats.resolved, tone: "success" },
        ]}
      />

      {/* Remounted when the filters change (Limpiar, back), so the fields show them. */}
      <Form method="get" className="admin-toolbar" aria-label="Filtrar incidencias" key={JSON.stringify(filters)} preventScrollReset>
        {[
          { name: "status", label: "Estado", anyLabel: "Todos los estados", options: labelledOptions(INCIDENT_STATUSES, INCIDENT_STATUS_LABELS) },
          { name: "type", label: "Tipo", anyLabel: "Todos los tipos", options: labelledOptions(INCIDENT_TYPES, INCIDENT_TYPE_LABELS) },
          { name: "urgency", label: "Urgencia", anyLabel: "Todas las urgencias", options: labelledOptions(INCIDENT_URGENCIES, URGENCY_LABELS) },
          { name: "doorId", label: "Puerta", anyLabel: "Todas las puertas", options: doors.map((door) => ({ value: door.doorId, label: doorOptionLabel(door) })) },
        ].map((filter) => (
          <FilterSelect key={filter.name} id={`incident-${filter.name}`} value={filters[filter.name as keyof typeof filters]} {...filter} />
        ))}
        <button type="submit" className="button">
          Aplicar Filtros
        </button>
        <Link to="/admin/incidents" className="button button-secondary" preventScrollReset>
          Limpiar
        </Link>
        <Link to={here({ modal: "new", incident: null })} className="button" preventScrollReset>
          Crear Incidencia
        </Link>
        <Link to={listUrl} className="button button-secondary" preventScrollReset>
          Actualizar
        </Link>
      </Form>

      {listFailure ? <FormAlert title="Error" errors={listFailure} /> : null}
      {incidents.length === 0 ? (
        <section className="empty-state card" aria-labelledby="incidents-empty">
          <h2 id="incidents-empty">No hay incidencias</h2>
          {filtered ? <p className="muted">Ninguna incidencia coincide con los filtros.</p> : null}
          <Link to={here({ modal: "new", incident: null })} className="button" preventScrollReset>
            Crear la primera incidencia
          </Link>
        </section>
      ) : (
        <>
          <p className="muted" data-testid="incident-count">
            {total === 1 ? "1 incidencia" : `${total} incidencias`}
          </p>
          <ul className="incident-list">
            {incidents.map((incident) => (
              <li key={incident._id}>
                <IncidentCard incident={incident} linkTo={(name) => here({ modal: name, incident: incident._id })} />
              </li>
            ))}
          </ul>
        </>
      )}
      <Pagination page={page} pages={pages} />

      {modal.name === "new" ? <CreateIncidentModal doors={doors} closeTo={listUrl} lastResult={resultFor(actionData, "create-incident")} /> : null}
      {modal.name && modal.name !== "new" && !modal.incident ? <IncidentNotFoundModal closeTo={listUrl} /> : null}
      {modal.incident && modal.name === "edit" ? (
        <EditIncidentModal incident={modal.incident} closeTo={listUrl} lastResult={resultFor(actionData, "update-incident")} />
      ) : null}
      {modal.incident && modal.name === "delete" ? (
        <DeleteIncidentModal incident={modal.incident} closeTo={listUrl} lastResult={resultFor(actionData, "delete-incident")} />
      ) : null}
    </>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
