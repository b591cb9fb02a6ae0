import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { useActionData, useFetcher, useLoaderData, useLocation } from "@remix-run/react";
import {
  CONSULTATION_STATUS_FETCHER_KEY,
  ConsultationDetailModal,
  ConsultationFiltersForm,
  ConsultationNotFoundModal,
  ConsultationRow,
  DeleteConsultationModal,
  MessageModal,
} from "~/components/admin/consultation-views";
import { DataTable } from "~/components/admin/list-parts";
import { Pagination } from "~/components/admin/pagination";
import { StatTiles } from "~/components/admin/stat-tiles";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { FormAlert, resultFor } from "~/components/forms";
import { requireAdmin } from "~/utils/auth.server";
import type { FormActionData } from "~/utils/form-reply.server";
import { pageMeta } from "~/utils/meta";
import { withSearchParams } from "~/utils/page-url";
import { consultationsAction, loadConsultationsPage } from "./admin.consultations.server";

export const meta = pageMeta("Gestión de Consultas");

// Rendered once per distinct data (ADR 0008): loaders and guards still run on every request.

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return loadConsultationsPage(request);
}

export async function action({ request }: ActionFunctionArgs) {
  await requireAdmin(request);
  return consultationsAction(request);
}

const COLUMNS = ["Fecha", "Nombre", "Email", "Teléfono", "Mensaje", "Estado", "Acciones"];

export default function ConsultationsPage() {
  const { filters, consultations, stats, total, page, pages, modal } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>() as FormActionData | undefined;
  const statusFetcher = useFetcher<FormActionData>({ key: CONSULTATION_STATUS_FETCHER_KEY });
  const { search } = useLocation();
  const here = (changes: Record<string, string | null>) => withSearchParams("/admin/consultations", search, changes);
  const listUrl = here({ modal: null, consultation: null });
  // A refused change (with or without JavaScript) says why above the list.
  const statusFailure = (statusFetcher.state === "idle" ? statusFetcher.data : actionData?.intent === "set-status" ? actionData : undefined)?.result.error?.[""];
  const openFailure = actionData?.intent === "open-details" ? actionData.result.error?.[""] : undefined;
  const consultation = modal.consultation;
  return (
    <>
      <h1>Gestión de Consultas</h1>
      <StatTiles
        label={filters.search ? "Estadísticas de las consultas encontradas" : "Estadísticas de consultas"}
        tiles={[
          { label: "Total", value: stats.total },
          { label: "Pendientes", value: stats.pending, tone: "warning" },
          { label: "Leídas", value: stats.read },
          { label: "Respondidas", value: stats.replied, tone: "success" },
          { label: "Cerradas", value: stats.closed },
        ]}
      />
      <ConsultationFiltersForm filters={filters} />
      {statusFailure ? <FormAlert title="No se pudo actualizar el estado" errors={statusFailure} /> : null}
      {openFailure ? <FormAlert title="Error" errors={openFailure} /> : null}
      <p className="muted" data-testid="consultation-count">
        {total === 1 ? "1 consulta" : `${total} consultas`}
      </p>
      {consultations.length === 0 ? (
        <p>{filters.search || filters.status ? "No hay consultas que coincidan con la búsqueda." : "No hay consultas."}</p>
      ) : (
        <DataTable caption="Consultas y solicitudes de visita" columns={COLUMNS}>
          {consultations.map((item) => (
            <ConsultationRow key={item._id} consultation={item} linkTo={(name) => here({ modal: name, consultation: item._id })} />
          ))}
        </DataTable>
      )}
      <Pagination page={page} pages={pages} />

      {modal.name && !consultation ? <ConsultationNotFoundModal closeTo={listUrl} /> : null}
      {consultation && modal.name === "detail" ? <ConsultationDetailModal consultation={consultation} closeTo={listUrl} /> : null}
      {consultation && modal.name === "message" ? <MessageModal consultation={consultation} closeTo={listUrl} /> : null}
      {consultation && modal.name === "delete" ? (
        <DeleteConsultationModal consultation={consultation} closeTo={listUrl} errors={resultFor(actionData, "delete-consultation")?.error?.[""]} />
      ) : null}
    </>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
