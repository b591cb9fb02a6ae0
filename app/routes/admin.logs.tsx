import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { useActionData, useLoaderData, useLocation } from "@remix-run/react";
import { ApproveCardModal } from "~/components/admin/card-modals";
import { RouteModal } from "~/components/admin/route-modal";
import { LogFiltersForm } from "~/components/admin/log-filters";
import { LogTable } from "~/components/admin/log-table";
import { Pagination } from "~/components/admin/pagination";
import { StatTiles } from "~/components/admin/stat-tiles";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { FormAlert, resultFor } from "~/components/forms";
import { requireAdmin } from "~/utils/auth.server";
import type { FormActionData } from "~/utils/form-reply.server";
import { loadLogsPage, logsAction } from "./admin.logs.server";
import type { StatFigure } from "~/services/access-log-review.server";
import { LOG_PAGE_SIZE } from "~/schemas/access-log";
import { pageMeta } from "~/utils/meta";
import { withSearchParams } from "~/utils/page-url";

export const meta = pageMeta("Registros de Acceso");

// Rendered once per distinct data (ADR 0008): loaders and guards still run on every request.

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return loadLogsPage(request);
}

export async function action({ request }: ActionFunctionArgs) {
  await requireAdmin(request);
  return logsAction(request);
}

export default function LogsPage() {
  const { filters, doors, stats, page, pages, pagesMoreThan, lines, rowCount, exportQuery, approval } = useLoaderData<typeof loader>();
  const { pathname, search } = useLocation();
  const closeTo = withSearchParams(pathname, search, { approve: null });
  // A search's figures past the count's bound read "más de N" (docs/api.md).
  const figure = (name: StatFigure) => (stats.moreThan?.includes(name) ? `más de ${stats[name].toLocaleString("es-ES")}` : stats[name]);
  const actionData = useActionData<typeof action>() as FormActionData | undefined;
  const filtered = filters.search !== "" || filters.doorId !== "" || filters.status !== "all";
  const approveResult = resultFor(actionData, "approve-card");
  return (
    <>
      <h1>Registros de Acceso</h1>
      {actionData && !approval ? <FormAlert errors={actionData.result.error?.[""]} /> : null}
      <LogFiltersForm filters={filters} doors={doors} exportHref={`/admin/logs/export${exportQuery ? `?${exportQuery}` : ""}`} />
      <StatTiles
        label="Estadísticas de los registros filtrados"
        tiles={[
          { label: "Total", value: figure("total") },
          { label: "Concedidos", value: figure("granted"), tone: "success" },
          { label: "Denegados", value: figure("denied"), tone: "error" },
          { label: "Alarmas", value: figure("alarms"), tone: "warning" },
          { label: "Tarjetas únicas", value: figure("uniqueCards") },
        ]}
      />
      {lines.length === 0 ? (
        <p>{filtered ? "No hay registros que coincidan con los filtros." : "No hay registros de acceso en este periodo."}</p>
      ) : (
        <>
          <p className="muted" data-testid="log-summary">
            {rowCount === 1 ? "1 registro en esta página." : `${rowCount} registros en esta página.`}
            {rowCount > lines.length
              ? ` Se muestran en ${lines.length} filas: los intentos de la misma tarjeta, puerta y resultado en 5 minutos se agrupan.`
              : null}
          </p>
          <LogTable lines={lines} approveHref={(id) => withSearchParams(pathname, search, { approve: id })} />
        </>
      )}
      <Pagination page={page} pages={pages} pagesMoreThan={pagesMoreThan} full={rowCount === LOG_PAGE_SIZE} />
      {approval?.detail ? (
        <ApproveCardModal detail={approval.detail} closeTo={closeTo} lastResult={approveResult} fromLog={{ logId: approval.logId, doorId: approval.doorId }} />
      ) : approval ? (
        <RouteModal title="Aprobar tarjeta" closeTo={closeTo}>
          <p>{approval.message}</p>
        </RouteModal>
      ) : null}
    </>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
