import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useLocation, useSubmit } from "@remix-run/react";
import { DataTable, FilterSelect } from "~/components/admin/list-parts";
import { Pagination } from "~/components/admin/pagination";
import {
  CancelReservationModal,
  ReservationDetailModal,
  ReservationNotFoundModal,
  ReservationRow,
} from "~/components/admin/reservation-views";
import { StatTiles } from "~/components/admin/stat-tiles";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { FormAlert, labelledOptions, resultFor } from "~/components/forms";
import { RESERVATION_STATUSES } from "~/db/schema-enums";
import { RESERVATION_STATUS_LABELS } from "~/schemas/reservation";
import { requireAdmin } from "~/utils/auth.server";
import type { FormActionData } from "~/utils/form-reply.server";
import { pageMeta } from "~/utils/meta";
import { withSearchParams } from "~/utils/page-url";
import { useHydrated } from "~/utils/use-hydrated";
import { loadReservationsPage, reservationsAction } from "./admin.reservations.server";

export const meta = pageMeta("Gestión de Reservas Anónimas");

// Rendered once per distinct data (ADR 0008): loaders and guards still run on every request.

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return loadReservationsPage(request);
}

export async function action({ request }: ActionFunctionArgs) {
  await requireAdmin(request);
  return reservationsAction(request);
}

const COLUMNS = ["Código", "Huésped", "Tipo", "Fechas", "Contacto", "Estado", "Acciones"];

export default function ReservationsPage() {
  const { filters, reservations, stats, total, page, pages, today, modal } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>() as FormActionData | undefined;
  const { search } = useLocation();
  const submit = useSubmit();
  const hydrated = useHydrated();
  const here = (changes: Record<string, string | null>) => withSearchParams("/admin/reservations", search, changes);
  const listUrl = here({ modal: null, reservation: null });
  const statusResult = resultFor(actionData, "set-status");
  const reservation = modal.reservation;
  return (
    <>
      <h1>Gestión de Reservas Anónimas</h1>
      <StatTiles
        label="Estadísticas de reservas"
        tiles={[
          { label: "Total Reservas", value: stats.total },
          { label: "Pendientes", value: stats.pending, tone: "warning" },
          { label: "Confirmadas", value: stats.confirmed, tone: "success" },
          { label: "Canceladas", value: stats.cancelled, tone: "error" },
        ]}
      />
      <Form method="get" className="admin-toolbar" aria-label="Filtrar reservas" key={JSON.stringify(filters)} preventScrollReset>
        <div className="field search-field">
          <label htmlFor="reservation-search">Buscar</label>
          <input id="reservation-search" type="search" name="search" defaultValue={filters.search ?? ""} placeholder="Código, nombre o email" />
        </div>
        <FilterSelect
          id="reservation-status"
          label="Estado"
          name="status"
          value={filters.status}
          anyLabel="Todos los estados"
          options={labelledOptions(RESERVATION_STATUSES, RESERVATION_STATUS_LABELS)}
          onChange={(event) => submit(event.currentTarget.form, { preventScrollReset: true })}
        />
        {hydrated ? null : (
          <button type="submit" className="button">
            Filtrar
          </button>
        )}
        <Link to={listUrl} className="button button-secondary" preventScrollReset>
          Actualizar
        </Link>
      </Form>

      {statusResult && !modal.name ? <FormAlert title="Error al actualizar el estado" errors={statusResult.error?.[""]} /> : null}
      <p className="muted" data-testid="reservation-count">
        {total === 1 ? "1 reserva" : `${total} reservas`}
      </p>
      {reservations.length === 0 ? (
        <p>{filters.search ? "Ninguna reserva coincide con la búsqueda." : filters.status ? "No hay reservas con ese estado." : "No hay reservas."}</p>
      ) : (
        <DataTable caption="Reservas anónimas" columns={COLUMNS}>
          {reservations.map((item) => (
            <ReservationRow key={item._id} reservation={item} linkTo={(name) => here({ modal: name, reservation: item._id })} />
          ))}
        </DataTable>
      )}
      <Pagination page={page} pages={pages} />

      {modal.name && !reservation ? <ReservationNotFoundModal closeTo={listUrl} /> : null}
      {reservation && modal.name === "detail" ? (
        <ReservationDetailModal
          reservation={reservation}
          places={modal.places}
          moveResult={resultFor(actionData, "move-room")}
          today={today}
          datesResult={resultFor(actionData, "change-dates")}
          closeTo={listUrl}
          cancelTo={here({ modal: "cancel" })}
          notesResult={resultFor(actionData, "save-notes")}
          statusResult={statusResult}
        />
      ) : null}
      {reservation && modal.name === "cancel" ? <CancelReservationModal reservation={reservation} closeTo={listUrl} lastResult={statusResult} /> : null}
    </>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
