import type { LoaderFunctionArgs } from "@remix-run/node";
import { Link, useLoaderData, useLocation } from "@remix-run/react";
import { AUDIT_COLUMNS, AuditDetailModal, AuditFiltersForm, AuditNotFoundModal, AuditRow } from "~/components/admin/audit-views";
import { DataTable } from "~/components/admin/list-parts";
import { Pagination } from "~/components/admin/pagination";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { requireAdmin } from "~/utils/auth.server";
import { pageMeta } from "~/utils/meta";
import { withSearchParams } from "~/utils/page-url";
import { loadAuditPage } from "./admin.auditoria.server";

export const meta = pageMeta("Auditoría");

// Rendered once per distinct data (ADR 0008): loaders and guards still run on every request.

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return loadAuditPage(request);
}

export default function AuditPage() {
  const { filters, events, total, page, pages, exportQuery, modal, verification } = useLoaderData<typeof loader>();
  const { search } = useLocation();
  const here = (changes: Record<string, string | null>) => withSearchParams("/admin/auditoria", search, changes);
  const listUrl = here({ modal: null, event: null, verify: null });
  const filtered = Object.values(filters).some(Boolean);
  return (
    <>
      <h1>Auditoría</h1>
      <p className="muted">Cada cambio hecho en el panel, la API y el portal, quién lo hizo y desde dónde. Los eventos no se pueden modificar.</p>
      <AuditFiltersForm filters={filters} exportHref={`/admin/auditoria/export${exportQuery ? `?${exportQuery}` : ""}`} />
      <p className="admin-toolbar">
        <Link to={here({ verify: "1", modal: null, event: null })} className="button button-secondary button-small" preventScrollReset>
          Verificar integridad
        </Link>
        {verification ? (
          <span role="status" data-testid="audit-verification" className={verification.ok ? "online" : "offline"}>
            {verification.ok
              ? `Cadena íntegra: ${verification.checked} eventos comprobados.`
              : `La cadena no es íntegra: el evento ${verification.firstBadId} no coincide (${verification.checked} eventos comprobados).`}
          </span>
        ) : null}
      </p>
      <p className="muted" data-testid="audit-count">
        {total === 1 ? "1 evento" : `${total} eventos`}
      </p>
      {events.length === 0 ? (
        <p>{filtered ? "No hay eventos que coincidan con los filtros." : "Todavía no hay eventos."}</p>
      ) : (
        <DataTable caption="Eventos de auditoría, del más reciente al más antiguo" columns={AUDIT_COLUMNS}>
          {events.map((event) => (
            <AuditRow key={event._id} event={event} detailsTo={here({ modal: "detail", event: String(event._id), verify: null })} />
          ))}
        </DataTable>
      )}
      <Pagination page={page} pages={pages} />
      {modal.name === "detail" && modal.event ? <AuditDetailModal event={modal.event} closeTo={listUrl} /> : null}
      {modal.name === "detail" && !modal.event ? <AuditNotFoundModal closeTo={listUrl} /> : null}
    </>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
