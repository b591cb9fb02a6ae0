// /admin/instalaciones: a resident's booking as a table row, and the
// cancellation's confirmation (URL state: ?modal=cancel&booking=…), a plain
// form that works without JavaScript.
import type { SubmissionResult } from "@conform-to/react";
import { Form, Link } from "@remix-run/react";
import { FormAlert, SubmitButton } from "~/components/forms";
import { BOOKING_STATUS_LABELS } from "~/schemas/facility-booking";
import type { AdminBookingJson } from "~/services/facility-bookings.server";
import { formatTimeRange } from "~/utils/dates";
import { RouteModal } from "./route-modal";

export function FacilityBookingRow({ booking, cancelTo }: { booking: AdminBookingJson; cancelTo: string }) {
  return (
    <tr data-testid="facility-booking-row" data-booking={booking._id}>
      <td data-label="Instalación">{booking.facilityName}</td>
      <td data-label="Residente">
        <strong>{booking.resident.name}</strong>
        <br />
        <span className="muted">
          {booking.resident.username}
          {booking.resident.unitNumber ? ` · Unidad ${booking.resident.unitNumber}` : null}
        </span>
      </td>
      <td data-label="Horario" className="nowrap">
        {formatTimeRange(booking.startTime, booking.endTime)}
      </td>
      <td data-label="Estado">
        <span className={`badge badge-${booking.status}`}>{BOOKING_STATUS_LABELS[booking.status]}</span>
      </td>
      <td data-label="Notas">{booking.notes ?? ""}</td>
      <td data-label="Acciones">
        {booking.cancellable ? (
          <Link to={cancelTo} className="button button-danger button-small" aria-label={`Cancelar reserva de ${booking.facilityName} de ${booking.resident.name}`} preventScrollReset>
            Cancelar
          </Link>
        ) : null}
      </td>
    </tr>
  );
}

export function CancelFacilityBookingModal({ booking, closeTo, lastResult }: { booking: AdminBookingJson; closeTo: string; lastResult?: SubmissionResult<string[]> }) {
  return (
    <RouteModal title="Cancelar reserva" closeTo={closeTo}>
      <FormAlert title="No se pudo cancelar la reserva" errors={lastResult?.error?.[""]} />
      <p tabIndex={-1} data-autofocus>
        ¿Seguro que quieres cancelar la reserva de <strong>{booking.facilityName}</strong> de {booking.resident.name} ({formatTimeRange(booking.startTime, booking.endTime)})?
      </p>
      <p>Se avisará al residente con una notificación. Esta acción no se puede deshacer.</p>
      {booking.cancellable ? (
        <Form method="post" className="modal-actions" preventScrollReset>
          <input type="hidden" name="id" value={booking._id} />
          <SubmitButton intent="cancel-booking" label="Sí, cancelar reserva" busyLabel="Cancelando..." className="button button-danger" />
        </Form>
      ) : (
        <p className="alert alert-error">La reserva está {BOOKING_STATUS_LABELS[booking.status].toLowerCase()}: ya no se puede cancelar.</p>
      )}
    </RouteModal>
  );
}
