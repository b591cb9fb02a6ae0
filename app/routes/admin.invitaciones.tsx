import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useLocation } from "@remix-run/react";
import { DataTable, FilterSelect } from "~/components/admin/list-parts";
import { Pagination } from "~/components/admin/pagination";
import { RouteModal } from "~/components/admin/route-modal";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { labelledOptions, resultFor } from "~/components/forms";
import { CancelVisitorPassModal } from "~/components/visitor-passes";
import { VISITOR_PASS_STATUS_LABELS, VISITOR_PASS_STATUSES } from "~/schemas/visitor-pass";
import type { VisitorPassJson } from "~/services/visitor-passes.server";
import { requireAdmin } from "~/utils/auth.server";
import { formatTimeRange } from "~/utils/dates";
import { pageMeta } from "~/utils/meta";
import { withSearchParams } from "~/utils/page-url";
import { loadVisitorPassesPage, visitorPassesAction } from "./admin.invitaciones.server";

export const meta = pageMeta("Invitaciones");

// Rendered once per distinct data (ADR 0008): loaders and guards still run on every request.

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return loadVisitorPassesPage(request);
}

export async function action({ request }: ActionFunctionArgs) {
  await requireAdmin(request);
  return visitorPassesAction(request);
}

const COLUMNS = ["Visita", "Residente", "Horario", "Puertas", "Estado", "Acciones"];
const STATUS_BADGE = { active: "badge-confirmed", used: "badge-completed", cancelled: "badge-cancelled", expired: "badge-pending" } as const;

export default function VisitorPassesPage() {
  const { filters, passes, total, page, pages, modal } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const { search } = useLocation();
  const here = (changes: Record<string, string | null>) => withSearchParams("/admin/invitaciones", search, changes);
  const listUrl = here({ modal: null, invitacion: null });
  const filtered = filters.status !== "all" || Boolean(filters.search) || Boolean(filters.userId);
  return (
    <>
      <h1>Invitaciones</h1>
      <p className="muted">Los códigos de acceso que los residentes dan a sus visitas: un día, unas horas, las puertas que ellos mismos abren.</p>
      <Form method="get" className="admin-toolbar" aria-label="Filtrar invitaciones" preventScrollReset>
        <FilterSelect
          key={filters.status}
          id="visitor-pass-status"
          label="Estado"
          name="status"
          value={filters.status === "all" ? undefined : filters.status}
          anyLabel="Todos los estados"
          options={labelledOptions(VISITOR_PASS_STATUSES, VISITOR_PASS_STATUS_LABELS)}
        />
        <div className="field search-field">
          <label htmlFor="visitor-pass-search">Buscar</label>
          <input id="visitor-pass-search" type="search" name="search" defaultValue={filters.search ?? ""} maxLength={100} placeholder="Visita o residente..." />
        </div>
        {filters.userId ? <input type="hidden" name="userId" value={filters.userId} /> : null}
        <button type="submit" className="button">
          Filtrar
        </button>
        <Link to="/admin/invitaciones" className="button button-secondary" preventScrollReset>
          Limpiar
        </Link>
      </Form>
      <p className="muted" data-testid="visitor-pass-count">
        {total === 1 ? "1 invitación" : `${total} invitaciones`}
      </p>
      {passes.length === 0 ? (
        <p>{filtered ? "No hay invitaciones que coincidan con los filtros." : "Todavía no hay invitaciones."}</p>
      ) : (
        <DataTable caption="Invitaciones de visitas, la más reciente primero" columns={COLUMNS}>
          {passes.map((pass) => (
            <VisitorPassRow key={pass._id} pass={pass} cancelTo={here({ modal: "anular", invitacion: pass._id })} />
          ))}
        </DataTable>
      )}
      <Pagination page={page} pages={pages} />
      {modal.name === "anular" ? (
        modal.pass?.cancellable ? (
          <CancelVisitorPassModal pass={modal.pass} closeTo={listUrl} errors={resultFor(actionData, "cancel-visitor-pass")?.error?.[""]} />
        ) : (
          <RouteModal title="Anular invitación" closeTo={listUrl}>
            <p>{modal.pass ? "Esta invitación ya no está activa" : "Invitación no encontrada"}</p>
          </RouteModal>
        )
      ) : null}
    </>
  );
}

function VisitorPassRow({ pass, cancelTo }: { pass: VisitorPassJson; cancelTo: string }) {
  const window = formatTimeRange(pass.validFrom, pass.validUntil);
  return (
    <tr data-testid="visitor-pass-row" data-status={pass.status}>
      <td data-label="Visita">
        {pass.visitorName}
        <br />
        <span className="muted">{pass.visitorEmail}</span>
      </td>
      <td data-label="Residente">{pass.resident?.name ?? "—"}</td>
      <td data-label="Horario">{window}</td>
      <td data-label="Puertas">{pass.doors.map((door) => door.name).join(", ")}</td>
      <td data-label="Estado">
        <span className={`badge ${STATUS_BADGE[pass.status]}`}>{VISITOR_PASS_STATUS_LABELS[pass.status]}</span>
      </td>
      <td data-label="Acciones">
        {pass.cancellable ? (
          <Link to={cancelTo} className="button button-secondary button-small" aria-label={`Anular invitación de ${pass.visitorName} (${window})`} preventScrollReset>
            Anular invitación
          </Link>
        ) : null}
      </td>
    </tr>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
