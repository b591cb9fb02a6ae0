// /admin/reservations: a reservation's table row and the screen's modals
// (URL state: ?modal=detail | cancel & reservation=…), each a plain form that
// works without JavaScript.
import { getFormProps, type SubmissionResult } from "@conform-to/react";
import { Form, Link } from "@remix-run/react";
import { EmailText } from "~/components/email-text";
import { FormAlert, InputField, SubmitButton, TextareaField, useSchemaForm } from "~/components/forms";
import {
  CONTACT_PREFERENCE_LABELS,
  RESERVATION_STATUS_LABELS,
  RESERVATION_TYPE_LABELS,
  RESERVATION_TYPE_SHORT_LABELS,
  ROOM_TYPE_LABELS,
  ReservationNotesSchema,
  AWAITING_EMAIL_LABEL,
  canAdminSet,
  createReservationDatesSchema,
  reservationStatusLabel,
} from "~/schemas/reservation";
import type { AdminReservationJson } from "~/services/reservations.server";
import { formatDateTime, formatIsoDay } from "~/utils/dates";
import { ActionButtonForm } from "./list-parts";
import { RouteModal } from "./route-modal";

export function ReservationStatusBadge({ status, lapsed = false }: { status: AdminReservationJson["status"]; lapsed?: boolean }) {
  return <span className={`badge badge-${lapsed && status === "cancelled" ? "lapsed" : status}`}>{reservationStatusLabel(status, lapsed)}</span>;
}

/** Issue 40: what a pending booking holds (nothing while its email awaits confirmation), or that it was released when its time ran out. */
function holdText(reservation: AdminReservationJson) {
  if (reservation.lapsedAt) return `Caducada el ${formatDateTime(reservation.lapsedAt)}: no se confirmó a tiempo`;
  if (reservation.status !== "pending") return null;
  const until = reservation.holdUntil ? formatDateTime(reservation.holdUntil) : null;
  if (reservation.awaitingEmail) return `${AWAITING_EMAIL_LABEL}: no retiene plaza${until ? `; se anula el ${until} si no se confirma` : ""}`;
  return until ? `Retenida sin confirmar hasta el ${until}` : "Retenida sin confirmar";
}

const daysText = (days: number) => (days === 1 ? "1 día" : `${days} días`);

function typeText(reservation: AdminReservationJson) {
  const type = RESERVATION_TYPE_SHORT_LABELS[reservation.reservationType];
  return reservation.roomType ? `${type} · ${ROOM_TYPE_LABELS[reservation.roomType]}` : type;
}

/** "Habitación 201" or the sala's name; null while it has none. */
function placeText(reservation: AdminReservationJson) {
  if (!reservation.room) return null;
  return reservation.reservationType === "sala" ? reservation.room.name : `Habitación ${reservation.room.name}`;
}

/** A room (or sala) the stay could be given, for the admin's choice. */
export type PlaceOption = { _id: string; name: string };

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
      <td data-label="Tipo">
        {typeText(reservation)}
        {placeText(reservation) ? (
          <>
            <br />
            <span className="muted" data-testid="reservation-room">
              {placeText(reservation)}
            </span>
          </>
        ) : null}
      </td>
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
        <ReservationStatusBadge status={reservation.status} lapsed={Boolean(reservation.lapsedAt)} />
        {reservation.status === "pending" && reservation.awaitingEmail ? (
          <>
            <br />
            <span className="muted">{AWAITING_EMAIL_LABEL}</span>
          </>
        ) : null}
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
  places,
  closeTo,
  cancelTo,
  notesResult,
  statusResult,
  moveResult,
  today,
  datesResult,
}: {
  reservation: AdminReservationJson;
  places: PlaceOption[];
  closeTo: string;
  cancelTo: string;
  notesResult?: SubmissionResult<string[]>;
  statusResult?: SubmissionResult<string[]>;
  moveResult?: SubmissionResult<string[]>;
  /** The building's date (the date change's rules). */
  today: string;
  datesResult?: SubmissionResult<string[]>;
}) {
  const sala = reservation.reservationType === "sala";
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
          <dt>{sala ? "Sala" : "Habitación"}</dt>
          <dd data-testid="reservation-room">{reservation.room?.name ?? <span className="muted">{sala ? "Sin sala" : "Se asigna al confirmar"}</span>}</dd>
          <dt>Entrada</dt>
          <dd data-testid="reservation-start">{formatIsoDay(reservation.startDate)}</dd>
          <dt>Salida</dt>
          <dd data-testid="reservation-end">{formatIsoDay(reservation.endDate)}</dd>
          <dt>Duración</dt>
          <dd>{daysText(reservation.days)}</dd>
          <dt>Estado</dt>
          <dd data-testid="reservation-status">
            <ReservationStatusBadge status={reservation.status} lapsed={Boolean(reservation.lapsedAt)} />
          </dd>
          {holdText(reservation) ? (
            <>
              <dt>Retención</dt>
              <dd data-testid="reservation-hold">{holdText(reservation)}</dd>
            </>
          ) : null}
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
      {reservation.status === "confirmed" ? <MoveRoomForm reservation={reservation} places={places} lastResult={moveResult} /> : null}
      {canAdminSet("cancelled", reservation.status) ? (
        // Remounted when the stored dates change, so the fields show them.
        <ChangeDatesForm key={`${reservation.startDate}/${reservation.endDate}`} reservation={reservation} today={today} lastResult={datesResult} />
      ) : null}
      <div className="modal-actions">
        {canAdminSet("confirmed", reservation.status) ? <ConfirmWithRoomForm reservation={reservation} places={places} /> : null}
        {canAdminSet("cancelled", reservation.status) ? (
          <Link to={cancelTo} className="button button-danger button-small" preventScrollReset>
            Cancelar reserva
          </Link>
        ) : null}
      </div>
    </RouteModal>
  );
}

/** Confirming from the details: the room (or sala) to give it, or the free one that fits best. */
function ConfirmWithRoomForm({ reservation, places }: { reservation: AdminReservationJson; places: PlaceOption[] }) {
  const sala = reservation.reservationType === "sala";
  const id = `confirm-room-${reservation._id}`;
  return (
    <Form method="post" className="inline-form confirm-room" preventScrollReset>
      <input type="hidden" name="id" value={reservation._id} />
      <input type="hidden" name="status" value="confirmed" />
      <div className="field">
        <label htmlFor={id}>{sala ? "Sala" : "Habitación"}</label>
        <select id={id} name="roomId" defaultValue={sala ? (reservation.room?._id ?? "") : ""}>
          <option value="">{sala ? "La que tiene (o la primera libre)" : "La libre que mejor encaja"}</option>
          {places.map((place) => (
            <option key={place._id} value={place._id}>
              {place.name}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" name="intent" value="set-status" className="button button-small" aria-label={`Confirmar reserva ${reservation.reservationCode}`}>
        Confirmar
      </button>
    </Form>
  );
}

/** A confirmed stay moves to another free room of its type (or another sala). */
function MoveRoomForm({ reservation, places, lastResult }: { reservation: AdminReservationJson; places: PlaceOption[]; lastResult?: SubmissionResult<string[]> }) {
  const sala = reservation.reservationType === "sala";
  const id = `move-room-${reservation._id}`;
  const others = places.filter((place) => place._id !== reservation.room?._id);
  return (
    <section className="details-section" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{sala ? "Cambiar de sala" : "Cambiar de habitación"}</h3>
      <FormAlert title="No se pudo cambiar la habitación" errors={lastResult?.error ? Object.values(lastResult.error).flatMap((list) => list ?? []) : null} />
      {others.length === 0 ? (
        <p className="muted">{sala ? "No hay otra sala libre esos días." : "No hay otra habitación de su tipo libre esas noches."}</p>
      ) : (
        <Form method="post" className="inline-form confirm-room" preventScrollReset>
          <input type="hidden" name="id" value={reservation._id} />
          <div className="field">
            <label htmlFor={id}>{sala ? "Nueva sala" : "Nueva habitación"}</label>
            <select id={id} name="roomId" required defaultValue="">
              <option value="" disabled>
                Elige una
              </option>
              {others.map((place) => (
                <option key={place._id} value={place._id}>
                  {place.name}
                </option>
              ))}
            </select>
          </div>
          <SubmitButton intent="move-room" label="Cambiar" busyLabel="Cambiando..." className="button button-secondary button-small" />
        </Form>
      )}
    </section>
  );
}

/**
 * New dates for a pending or confirmed stay (the booking's date rules); the
 * server checks its room (or its type, or a sala) is free on them.
 */
function ChangeDatesForm({ reservation, today, lastResult }: { reservation: AdminReservationJson; today: string; lastResult?: SubmissionResult<string[]> }) {
  const [form, fields] = useSchemaForm(createReservationDatesSchema({ today }), {
    id: `reservation-dates-${reservation._id}`,
    lastResult,
    defaultValue: { startDate: reservation.startDate, endDate: reservation.endDate },
  });
  return (
    <section className="details-section" aria-labelledby={`${form.id}-title`}>
      <h3 id={`${form.id}-title`}>Cambiar fechas</h3>
      <Form method="post" {...getFormProps(form)} className="form" preventScrollReset>
        <FormAlert id={form.errorId} title="No se pudieron cambiar las fechas" errors={form.errors} />
        <input type="hidden" name="id" value={reservation._id} />
        <InputField label="Fecha de entrada" meta={fields.startDate} type="date" min={today} />
        <InputField label="Fecha de salida" meta={fields.endDate} type="date" min={today} />
        <div>
          <SubmitButton intent="change-dates" label="Cambiar fechas" busyLabel="Cambiando..." className="button button-secondary" />
        </div>
      </Form>
    </section>
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
