// /admin/reservations: a reservation's table row and the screen's modals
// (URL state: ?modal=detail | cancel & reservation=…), each a plain form that
// works without JavaScript.
import { getFormProps, type SubmissionResult } from "@conform-to/react";
import { Form, Link } from "@remix-run/react";
import { EmailText } from "~/components/email-text";
import { FormAlert, SubmitButton, TextareaField, useSchemaForm } from "~/components/forms";
import {
  CONTACT_PREFERENCE_LABELS,
  RESERVATION_STATUS_LABELS,
  RESERVATION_TYPE_LABELS,
  RESERVATION_TYPE_SHORT_LABELS,
  ROOM_TYPE_LABELS,
  ReservationNotesSchema,
  canAdminSet,
} from "~/schemas/reservation";
import type { AdminReservationJson } from "~/services/reservations.server";
import { formatDateTime, formatIsoDay } from "~/utils/dates";
import { ActionButtonForm } from "./list-parts";
import { RouteModal } from "./route-modal";

export function ReservationStatusBadge({ status }: { status: AdminReservationJson["status"] }) {
  return <span className={`badge badge-${status}`}>{RESERVATION_STATUS_LABELS[status]}</span>;
}

const daysText = (days: number) => (days === 1 ? "1 día" : `${days} días`);

function typeText(reservation: AdminReservationJson) {
  const type = RESERVATION_TYPE_SHORT_LABELS[reservation.reservationType];
  return reservation.roomType ? `${type} · ${ROOM_TYPE_LABELS[reservation.roomType]}` : type;
}

/** The confirm button (no confirmation step: confirming only tells the guest good news). */
export function ConfirmReservationForm({ reservation }: { reservation: AdminReservationJson }) {
  return (
    <ActionButtonForm
      fields={{ id: reservation._id, status: "confirmed" }}
      intent="set-status"
      label="Confirmar"
      ariaLabel={`Confirmar reserva ${reservation.reservationCode}`}
    />
  );
}

export function ReservationRow({ reservation, linkTo }: { reservation: AdminReservationJson; linkTo: (modal: "detail" | "cancel") => string }) {
  const code = reservation.reservationCode;
  return (
    <tr data-testid="reservation-row" data-code={code}>
      <td data-label="Código">
        <code>{code}</code>
      </td>
      <td data-label="Huésped">
        <strong>{reservation.guestName}</strong>
        <br />
        <a href={`mailto:${reservation.guestEmail}`}>
          <EmailText email={reservation.guestEmail} />
        </a>
      </td>
      <td data-label="Tipo">{typeText(reservation)}</td>
      <td data-label="Fechas" className="nowrap">
        Entrada: {formatIsoDay(reservation.startDate)}
        <br />
        Salida: {formatIsoDay(reservation.endDate)}
        <br />
        <span className="muted">{daysText(reservation.days)}</span>
      </td>
      <td data-label="Contacto">
        <a href={`tel:${reservation.guestPhone.replace(/[^\d+]/g, "")}`} className="phone">
          {reservation.guestPhone}
        </a>
        <br />
        <span className="muted">Prefiere: {CONTACT_PREFERENCE_LABELS[reservation.contactPreference]}</span>
      </td>
      <td data-label="Estado">
        <ReservationStatusBadge status={reservation.status} />
      </td>
      <td data-label="Acciones">
        <div className="actions">
          <Link to={linkTo("detail")} className="button button-secondary button-small" aria-label={`Ver reserva ${code}`} preventScrollReset>
            Ver
          </Link>
          {canAdminSet("confirmed", reservation.status) ? <ConfirmReservationForm reservation={reservation} /> : null}
          {canAdminSet("cancelled", reservation.status) ? (
            <Link to={linkTo("cancel")} className="button button-danger button-small" aria-label={`Cancelar reserva ${code}`} preventScrollReset>
              Cancelar
            </Link>
          ) : null}
        </div>
      </td>
    </tr>
  );
}

export function ReservationDetailModal({
  reservation,
  closeTo,
  cancelTo,
  notesResult,
  statusResult,
}: {
  reservation: AdminReservationJson;
  closeTo: string;
  cancelTo: string;
  notesResult?: SubmissionResult<string[]>;
  statusResult?: SubmissionResult<string[]>;
}) {
  return (
    <RouteModal title={`Reserva ${reservation.reservationCode}`} closeTo={closeTo}>
      <FormAlert title="Error al actualizar el estado" errors={statusResult?.error?.[""]} />
      <section className="details-section" aria-labelledby="reservation-guest">
        <h3 id="reservation-guest">Huésped</h3>
        <dl className="details">
          <dt>Nombre</dt>
          <dd>{reservation.guestName}</dd>
          <dt>Email</dt>
          <dd>
            <a href={`mailto:${reservation.guestEmail}`}>{reservation.guestEmail}</a>
          </dd>
          <dt>Teléfono</dt>
          <dd>{reservation.guestPhone}</dd>
          <dt>Contacto preferido</dt>
          <dd>{CONTACT_PREFERENCE_LABELS[reservation.contactPreference]}</dd>
        </dl>
      </section>
      <section className="details-section" aria-labelledby="reservation-details">
        <h3 id="reservation-details">Reserva</h3>
        <dl className="details">
          <dt>Código</dt>
          <dd>
            <code>{reservation.reservationCode}</code>
          </dd>
          <dt>Tipo</dt>
          <dd>
            {RESERVATION_TYPE_LABELS[reservation.reservationType]}
            {reservation.roomType ? ` (${ROOM_TYPE_LABELS[reservation.roomType]})` : null}
          </dd>
          <dt>Entrada</dt>
          <dd>{formatIsoDay(reservation.startDate)}</dd>
          <dt>Salida</dt>
          <dd>{formatIsoDay(reservation.endDate)}</dd>
          <dt>Duración</dt>
          <dd>{daysText(reservation.days)}</dd>
          <dt>Estado</dt>
          <dd data-testid="reservation-status">
            <ReservationStatusBadge status={reservation.status} />
          </dd>
        </dl>
      </section>
      <section className="details-section" aria-labelledby="reservation-requests">
        <h3 id="reservation-requests">Peticiones especiales</h3>
        <p className="message-text">{reservation.specialRequests ?? <span className="muted">Sin peticiones especiales</span>}</p>
      </section>
      <section className="details-section" aria-labelledby="reservation-notes">
        <h3 id="reservation-notes">Notas del administrador</h3>
        {/* Remounted when the stored notes change, so the field shows them. */}
        <ReservationNotesForm key={reservation.adminNotes ?? ""} reservation={reservation} lastResult={notesResult} />
      </section>
      <section className="details-section" aria-labelledby="reservation-history">
        <h3 id="reservation-history">Historial</h3>
        <dl className="details">
          <dt>Creada</dt>
          <dd>{formatDateTime(reservation.createdAt)}</dd>
          {reservation.confirmedAt ? (
            <>
              <dt>Confirmada</dt>
              <dd>{formatDateTime(reservation.confirmedAt)}</dd>
            </>
          ) : null}
          {reservation.cancelledAt ? (
            <>
              <dt>Cancelada</dt>
              <dd>{formatDateTime(reservation.cancelledAt)}</dd>
            </>
          ) : null}
          <dt>Última actualización</dt>
          <dd>{formatDateTime(reservation.updatedAt)}</dd>
        </dl>
      </section>
      <div className="modal-actions">
        {canAdminSet("confirmed", reservation.status) ? <ConfirmReservationForm reservation={reservation} /> : null}
        {canAdminSet("cancelled", reservation.status) ? (
          <Link to={cancelTo} className="button button-danger button-small" preventScrollReset>
            Cancelar reserva
          </Link>
        ) : null}
      </div>
    </RouteModal>
  );
}

function ReservationNotesForm({ reservation, lastResult }: { reservation: AdminReservationJson; lastResult?: SubmissionResult<string[]> }) {
  const [form, fields] = useSchemaForm(ReservationNotesSchema, {
    id: `reservation-notes-${reservation._id}`,
    lastResult,
    defaultValue: { adminNotes: reservation.adminNotes ?? "" },
  });
  return (
    <Form method="post" {...getFormProps(form)} className="form" preventScrollReset>
      <FormAlert id={form.errorId} title="Error" errors={form.errors} />
      <input type="hidden" name="id" value={reservation._id} />
      <TextareaField label="Notas (las ve el huésped al consultar su reserva)" meta={fields.adminNotes} rows={3} />
      <div>
        <SubmitButton intent="save-notes" label="Guardar Notas" busyLabel="Guardando..." className="button button-secondary" />
      </div>
    </Form>
  );
}

export function CancelReservationModal({ reservation, closeTo, lastResult }: { reservation: AdminReservationJson; closeTo: string; lastResult?: SubmissionResult<string[]> }) {
  return (
    <RouteModal title="Cancelar reserva" closeTo={closeTo}>
      <FormAlert title="Error al actualizar el estado" errors={lastResult?.error?.[""]} />
      <p tabIndex={-1} data-autofocus>
        ¿Seguro que quieres cancelar la reserva <code>{reservation.reservationCode}</code> de {reservation.guestName}?
      </p>
      <p>Se enviará un email al huésped avisando de la cancelación. Esta acción no se puede deshacer.</p>
      {canAdminSet("cancelled", reservation.status) ? (
        <Form method="post" className="modal-actions" preventScrollReset>
          <input type="hidden" name="id" value={reservation._id} />
          <input type="hidden" name="status" value="cancelled" />
          <SubmitButton intent="set-status" label="Sí, cancelar reserva" busyLabel="Cancelando..." className="button button-danger" />
        </Form>
      ) : (
        <p className="alert alert-error">
          La reserva está {RESERVATION_STATUS_LABELS[reservation.status].toLowerCase()}: ya no se puede cancelar.
        </p>
      )}
    </RouteModal>
  );
}

export function ReservationNotFoundModal({ closeTo }: { closeTo: string }) {
  return (
    <RouteModal title="Reserva no encontrada" closeTo={closeTo}>
      <p>La reserva no existe.</p>
    </RouteModal>
  );
}
