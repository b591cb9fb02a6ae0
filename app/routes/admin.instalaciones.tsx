import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useLocation } from "@remix-run/react";
import { CancelFacilityBookingModal, FacilityBookingRow } from "~/components/admin/facility-booking-views";
import { DataTable, FilterSelect } from "~/components/admin/list-parts";
import { Pagination } from "~/components/admin/pagination";
import { RouteModal } from "~/components/admin/route-modal";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { FormAlert, resultFor } from "~/components/forms";
import { requireAdmin } from "~/utils/auth.server";
import type { FormActionData } from "~/utils/form-reply.server";
import { pageMeta } from "~/utils/meta";
import { withSearchParams } from "~/utils/page-url";
import { facilityBookingsAction, loadFacilityBookingsPage } from "./admin.instalaciones.server";

export const meta = pageMeta("Reservas de instalaciones");

// Rendered once per distinct data (ADR 0008): loaders and guards still run on every request.

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return loadFacilityBookingsPage(request);
}

export async function action({ request }: ActionFunctionArgs) {
  const admin = await requireAdmin(request);
  return facilityBookingsAction(request, admin);
}

const COLUMNS = ["Instalación", "Residente", "Horario", "Estado", "Notas", "Acciones"];

export default function FacilityBookingsPage() {
  const { filters, facilities, bookings, total, page, pages, modal } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>() as FormActionData | undefined;
  const { search } = useLocation();
  const here = (changes: Record<string, string | null>) => withSearchParams("/admin/instalaciones", search, changes);
  const listUrl = here({ modal: null, booking: null });
  const cancelResult = resultFor(actionData, "cancel-booking");
  const filtered = Object.keys(filters).length > 0;
  return (
    <>
      <h1>Reservas de instalaciones</h1>
      {/* Remounted when the filters change (Limpiar, back), so the fields show them. */}
      <Form method="get" className="admin-toolbar" aria-label="Filtrar reservas de instalaciones" key={JSON.stringify(filters)} preventScrollReset>
        <FilterSelect
          id="booking-facility"
          label="Instalación"
          name="facilityId"
          value={filters.facilityId}
          anyLabel="Todas las instalaciones"
          options={facilities.map((facility) => ({ value: facility._id, label: `${facility.name} (${facility.typeLabel})` }))}
        />
        <div className="field">
          <label htmlFor="booking-resident">Residente</label>
          <input id="booking-resident" type="search" name="resident" defaultValue={filters.resident ?? ""} placeholder="Nombre, usuario o email" />
        </div>
        <div className="field">
          <label htmlFor="booking-date">Día</label>
          <input id="booking-date" type="date" name="date" defaultValue={filters.date ?? ""} />
        </div>
        <button type="submit" className="button">
          Aplicar Filtros
        </button>
        <Link to="/admin/instalaciones" className="button button-secondary" preventScrollReset>
          Limpiar
        </Link>
      </Form>

      {cancelResult && !modal.name ? <FormAlert title="No se pudo cancelar la reserva" errors={cancelResult.error?.[""]} /> : null}
      <p className="muted" data-testid="facility-booking-count">
        {total === 1 ? "1 reserva" : `${total} reservas`}
      </p>
      {bookings.length === 0 ? (
        <p>{filtered ? "Ninguna reserva coincide con los filtros." : "Los residentes aún no han reservado ninguna instalación."}</p>
      ) : (
        <DataTable caption="Reservas de instalaciones de los residentes" columns={COLUMNS}>
          {bookings.map((booking) => (
            <FacilityBookingRow key={booking._id} booking={booking} cancelTo={here({ modal: "cancel", booking: booking._id })} />
          ))}
        </DataTable>
      )}
      <Pagination page={page} pages={pages} />

      {modal.name && !modal.booking ? (
        <RouteModal title="Reserva no encontrada" closeTo={listUrl}>
          <p>La reserva no existe.</p>
        </RouteModal>
      ) : null}
      {modal.booking ? <CancelFacilityBookingModal booking={modal.booking} closeTo={listUrl} lastResult={cancelResult} /> : null}
    </>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
