// /admin/ocupacion: the house's calendar as a grid (rooms and salas as rows,
// 14 days as columns; from 768 px) and as cards (one per room, its days as a
// list; on a phone), its legend, and the details modals a stay or a booking
// opens (URL state, so every link works without JavaScript).
import { Link } from "@remix-run/react";
import { RESERVATION_STATUS_LABELS, RESERVATION_TYPE_LABELS, ROOM_TYPE_LABELS } from "~/schemas/reservation";
import { BOOKING_STATUS_LABELS } from "~/schemas/facility-booking";
import type { AdminBookingJson } from "~/services/facility-bookings.server";
import type { BookingMark, Occupancy, OccupancyRow, StaySpan } from "~/services/occupancy.server";
import type { AdminReservationJson } from "~/services/reservations.server";
import { formatIsoDay, formatTimeRange } from "~/utils/dates";
import { RouteModal } from "./route-modal";

type Links = { stay: (id: string) => string; booking: (id: string) => string };

function stayLabel(stay: StaySpan) {
  return `${stay.guestName} (${stay.code}), ${RESERVATION_STATUS_LABELS[stay.status].toLowerCase()}, del ${formatIsoDay(stay.startDate)} al ${formatIsoDay(stay.endDate)}`;
}

/** A stay's link to its details; in the grid its label is also a tooltip (the text may be cut short). */
function StayLink({ stay, links, tooltip = false }: { stay: StaySpan; links: Links; tooltip?: boolean }) {
  const label = stayLabel(stay);
  return (
    <Link to={links.stay(stay.id)} className={`occ-stay occ-${stay.status}`} aria-label={label} title={tooltip ? label : undefined} preventScrollReset data-testid="occupancy-stay" data-code={stay.code}>
      {stay.before ? "← " : ""}
      {stay.guestName} <span className="occ-code">{stay.code}</span>
      {stay.after ? " →" : ""}
    </Link>
  );
}

function BookingLink({ booking, links }: { booking: BookingMark; links: Links }) {
  return (
    <Link to={links.booking(booking.id)} className={`occ-booking occ-${booking.status}`} preventScrollReset data-testid="occupancy-booking">
      {booking.time} {booking.residentName}
    </Link>
  );
}

function RowHeader({ row }: { row: OccupancyRow }) {
  return (
    <>
      <strong>{row.name}</strong> <span className="occ-detail">{row.detail}</span>
      {row.outOfService ? <span className="badge badge-room-out-of-service">Fuera de servicio</span> : null}
    </>
  );
}

/** The row's cells: a stay spans its columns, every other day is a cell of its own (with a sala's bookings of that day). */
function RowCells({ row, days, links }: { row: OccupancyRow; days: Occupancy["days"]; links: Links }) {
  const stays = [...row.stays].sort((a, b) => a.col - b.col);
  const cells = [];
  let next = 0;
  for (let col = 0; col < days.length; ) {
    while (next < stays.length && stays[next]!.col < col) next++;
    const stay = stays[next];
    if (stay && stay.col === col && stay.span > 0) {
      cells.push(
        <td key={col} colSpan={stay.span} className="occ-cell occ-cell-stay">
          <StayLink stay={stay} links={links} tooltip />
        </td>,
      );
      col += stay.span;
      next++;
      continue;
    }
    const bookings = row.bookings.filter((booking) => booking.col === col);
    cells.push(
      <td key={col} className={`occ-cell${row.outOfService ? " occ-oos" : ""}${days[col]!.today ? " occ-today" : ""}`}>
        {bookings.length > 0 ? (
          <ul className="occ-bookings">
            {bookings.map((booking) => (
              <li key={booking.id}>
                <BookingLink booking={booking} links={links} />
              </li>
            ))}
          </ul>
        ) : null}
      </td>,
    );
    col++;
  }
  return <>{cells}</>;
}

export function OccupancyGrid({ occupancy, links }: { occupancy: Occupancy; links: Links }) {
  return (
    // Wider than most screens: the region scrolls sideways, and the keyboard can scroll it too.
    <div className="table-wrap occupancy-grid" role="region" aria-label="Ocupación por días" tabIndex={0}>
      <table className="occupancy" data-testid="occupancy-grid">
        <caption className="visually-hidden">
          Ocupación del {formatIsoDay(occupancy.from)} al {formatIsoDay(occupancy.days[occupancy.days.length - 1]!.date)}
        </caption>
        <thead>
          <tr>
            <th scope="col">Habitación</th>
            {occupancy.days.map((day) => (
              <th key={day.date} scope="col" className={`${day.today ? "occ-today" : ""}${day.weekend ? " occ-weekend" : ""}`}>
                {day.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {occupancy.rows.map((row) => (
            <tr key={row.key} data-row={row.name} className={`occ-row-${row.kind}`}>
              <th scope="row">
                <RowHeader row={row} />
              </th>
              <RowCells row={row} days={occupancy.days} links={links} />
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** On a phone: one card per room or sala, its 14 days as a list (a stay's link on its first day). */
export function OccupancyCards({ occupancy, links }: { occupancy: Occupancy; links: Links }) {
  return (
    <ul className="occupancy-cards" aria-label="Ocupación por habitación">
      {occupancy.rows.map((row) => (
        <li key={row.key} className="card" data-row={row.name}>
          <h2 className="occ-card-title">
            <RowHeader row={row} />
          </h2>
          <ul className="occ-days">
            {occupancy.days.map((day, col) => {
              const stay = row.stays.find((item) => item.col <= col && col < item.col + item.span);
              const bookings = row.bookings.filter((booking) => booking.col === col);
              return (
                <li key={day.date} className={day.today ? "occ-today" : undefined}>
                  <span className="occ-day">{day.label}</span>{" "}
                  {stay && stay.col < col ? (
                    // The stay's link is on its first day in the list; the days after only name it (a page of
                    // many rooms stays light: the cards repeat no link for every night).
                    <span className={`occ-stay occ-${stay.status} occ-cont`}>{stay.guestName} (sigue)</span>
                  ) : stay ? (
                    <StayLink stay={stay} links={links} />
                  ) : bookings.length > 0 ? (
                    bookings.map((booking) => <BookingLink key={booking.id} booking={booking} links={links} />)
                  ) : (
                    <span className="muted">{row.outOfService ? "Fuera de servicio" : "Libre"}</span>
                  )}
                </li>
              );
            })}
          </ul>
        </li>
      ))}
    </ul>
  );
}

export function OccupancyLegend() {
  return (
    <ul className="occupancy-legend" aria-label="Leyenda">
      <li>
        <span className="occ-swatch occ-pending" aria-hidden="true" /> Pendiente
      </li>
      <li>
        <span className="occ-swatch occ-confirmed" aria-hidden="true" /> Confirmada
      </li>
      <li>
        <span className="occ-swatch occ-completed" aria-hidden="true" /> Completada
      </li>
      <li>
        <span className="occ-swatch occ-resident" aria-hidden="true" /> Reserva de residente (sala)
      </li>
      <li>
        <span className="occ-swatch occ-oos" aria-hidden="true" /> Fuera de servicio
      </li>
    </ul>
  );
}

export function OccupancyStayModal({ reservation, closeTo }: { reservation: AdminReservationJson; closeTo: string }) {
  const type = RESERVATION_TYPE_LABELS[reservation.reservationType];
  return (
    <RouteModal title={`Reserva ${reservation.reservationCode}`} closeTo={closeTo}>
      <dl className="details">
        <dt>Huésped</dt>
        <dd>
          {reservation.guestName} · <a href={`mailto:${reservation.guestEmail}`}>{reservation.guestEmail}</a>
        </dd>
        <dt>Tipo</dt>
        <dd>{reservation.roomType ? `${type} (${ROOM_TYPE_LABELS[reservation.roomType]})` : type}</dd>
        <dt>{reservation.reservationType === "sala" ? "Sala" : "Habitación"}</dt>
        <dd>{reservation.room?.name ?? <span className="muted">Sin asignar</span>}</dd>
        <dt>Fechas</dt>
        <dd>
          {formatIsoDay(reservation.startDate)} – {formatIsoDay(reservation.endDate)}
        </dd>
        <dt>Estado</dt>
        <dd>
          <span className={`badge badge-${reservation.status}`}>{RESERVATION_STATUS_LABELS[reservation.status]}</span>
        </dd>
      </dl>
      <p>
        <Link to={`/admin/reservations?modal=detail&reservation=${reservation._id}`} className="button button-small">
          Abrir en Reservas
        </Link>
      </p>
    </RouteModal>
  );
}

export function OccupancyBookingModal({ booking, closeTo }: { booking: AdminBookingJson; closeTo: string }) {
  return (
    <RouteModal title={`Reserva de ${booking.facilityName}`} closeTo={closeTo}>
      <dl className="details">
        <dt>Residente</dt>
        <dd>
          {booking.resident.name}
          {booking.resident.unitNumber ? ` · Unidad ${booking.resident.unitNumber}` : null}
        </dd>
        <dt>Horario</dt>
        <dd>{formatTimeRange(booking.startTime, booking.endTime)}</dd>
        <dt>Estado</dt>
        <dd>
          <span className={`badge badge-${booking.status}`}>{BOOKING_STATUS_LABELS[booking.status]}</span>
        </dd>
        {booking.notes ? (
          <>
            <dt>Notas</dt>
            <dd>{booking.notes}</dd>
          </>
        ) : null}
      </dl>
      <p className="actions">
        <Link to={`/admin/instalaciones?facilityId=${booking.facilityId}`} className="button button-secondary button-small">
          Ver en Reservas de instalaciones
        </Link>
        {booking.cancellable ? (
          <Link to={`/admin/instalaciones?modal=cancel&booking=${booking._id}`} className="button button-danger button-small">
            Cancelar reserva
          </Link>
        ) : null}
      </p>
    </RouteModal>
  );
}

export function OccupancyNotFoundModal({ closeTo }: { closeTo: string }) {
  return (
    <RouteModal title="Reserva no encontrada" closeTo={closeTo}>
      <p>La reserva no existe.</p>
    </RouteModal>
  );
}
