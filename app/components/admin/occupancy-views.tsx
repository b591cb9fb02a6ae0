// /admin/ocupacion: the house's calendar as a grid (rooms and salas as rows,
// 14 days as columns; from 768 px) and as cards (one per room, its days as a
// list; on a phone; the stylesheet shows one of the two), its legend, and the details modals a stay or a booking
// opens (URL state, so every link works without JavaScript).
import { Link, useNavigate } from "@remix-run/react";
import type { MouseEvent } from "react";
import { RESERVATION_STATUS_LABELS, RESERVATION_TYPE_LABELS, ROOM_TYPE_LABELS } from "~/schemas/reservation";
import { BOOKING_STATUS_LABELS } from "~/schemas/facility-booking";
import type { AdminBookingJson } from "~/services/facility-bookings.server";
import type { BookingMark, Occupancy, OccupancyRow, StaySpan } from "~/services/occupancy.server";
import type { AdminReservationJson } from "~/services/reservations.server";
import { formatDateTime, formatIsoDay, formatTimeRange } from "~/utils/dates";
import { RouteModal } from "./route-modal";

type Links = { stay: (id: string) => string; booking: (id: string) => string };

// The page draws every room's 14 days twice (grid and phone cards) for up to
// a hundred rows, so its markup is kept lean: one element per free day, text
// as single strings (no React text separators), the long accessible label
// only on the grid's link, and the stays' and bookings' links plain anchors
// (a Remix <Link> runs several hooks each in the server's render; hundreds of
// them were a large part of it). Without JavaScript they are ordinary links;
// with it, one click handler per view opens them without a reload.

function useCalendarNavigation() {
  const navigate = useNavigate();
  return (event: MouseEvent<HTMLElement>) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.altKey || event.ctrlKey || event.shiftKey) return;
    const anchor = event.target instanceof Element ? event.target.closest("a[href]") : null;
    if (!anchor || !event.currentTarget.contains(anchor)) return;
    event.preventDefault();
    navigate(anchor.getAttribute("href")!, { preventScrollReset: true });
  };
}

/** A pending stay's hold in words (issue 40): awaiting the email it holds nothing; otherwise held until its lapse unless the house confirms it. */
function holdWords(stay: StaySpan) {
  if (stay.hold === "awaiting-email") return ", email sin confirmar (no retiene plaza)";
  if (stay.hold === "unconfirmed") return `, retenida sin confirmar${stay.holdUntil ? ` hasta el ${formatDateTime(stay.holdUntil)}` : ""}`;
  return "";
}

function stayLabel(stay: StaySpan) {
  return `${stay.guestName} (${stay.code}), ${RESERVATION_STATUS_LABELS[stay.status].toLowerCase()}${holdWords(stay)}, del ${formatIsoDay(stay.startDate)} al ${formatIsoDay(stay.endDate)}`;
}

const stayClass = (stay: StaySpan) => `occ-stay occ-${stay.status}${stay.hold ? ` occ-${stay.hold}` : ""}`;

function BookingLink({ booking, links }: { booking: BookingMark; links: Links }) {
  return (
    <a href={links.booking(booking.id)} className={`occ-booking occ-${booking.status}`}>
      {`${booking.time} ${booking.residentName}`}
    </a>
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

/** The row's cells: a stay is one cell spanning its columns (its label also a tooltip: the text may be cut short), every other day an empty cell (or a sala's bookings of that day). */
function rowCells(row: OccupancyRow, days: Occupancy["days"], links: Links) {
  const stays = [...row.stays].sort((a, b) => a.col - b.col);
  const cells = [];
  let next = 0;
  for (let col = 0; col < days.length; ) {
    while (next < stays.length && stays[next]!.col < col) next++;
    const stay = stays[next];
    if (stay && stay.col === col && stay.span > 0) {
      const label = stayLabel(stay);
      cells.push(
        <td key={col} colSpan={stay.span}>
          <a href={links.stay(stay.id)} className={stayClass(stay)} aria-label={label} title={label} data-code={stay.code}>
            {`${stay.before ? "← " : ""}${stay.guestName} `}
            <span className="occ-code">{stay.code}</span>
            {stay.after ? " →" : null}
          </a>
        </td>,
      );
      col += stay.span;
      next++;
      continue;
    }
    const bookings = row.bookings.filter((booking) => booking.col === col);
    cells.push(
      <td key={col} className={days[col]!.today ? "occ-today" : undefined}>
        {bookings.length > 0
          ? bookings.map((booking) => <BookingLink key={booking.id} booking={booking} links={links} />)
          : null}
      </td>,
    );
    col++;
  }
  return cells;
}

export function OccupancyGrid({ occupancy, links }: { occupancy: Occupancy; links: Links }) {
  const onClick = useCalendarNavigation();
  return (
    // It fits a 1280 px screen; on narrower ones the region scrolls sideways, and the keyboard can scroll it too.
    <div className="table-wrap occupancy-grid" role="region" aria-label="Ocupación por días" tabIndex={0} onClick={onClick}>
      <table className="occupancy" data-testid="occupancy-grid">
        <caption className="visually-hidden">
          {`Ocupación del ${formatIsoDay(occupancy.from)} al ${formatIsoDay(occupancy.days[occupancy.days.length - 1]!.date)}`}
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
            <tr key={row.key} data-row={row.name} className={row.outOfService ? "occ-row-oos" : undefined}>
              <th scope="row">
                <RowHeader row={row} />
              </th>
              {rowCells(row, occupancy.days, links)}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * On a phone: one card per room or sala, its 14 days as a list. A stay's link
 * (its status in words, as the grid's colour says it) is on its first day; the
 * days after only name the guest.
 */
export function OccupancyCards({ occupancy, links }: { occupancy: Occupancy; links: Links }) {
  const onClick = useCalendarNavigation();
  return (
    <ul className="occupancy-cards" aria-label="Ocupación por habitación" onClick={onClick}>
      {occupancy.rows.map((row) => {
        const free = row.outOfService ? " Fuera de servicio" : " Libre";
        return (
          <li key={row.key} className="card" data-row={row.name}>
            <h2 className="occ-card-title">
              <RowHeader row={row} />
            </h2>
            <ol className="occ-days">
              {occupancy.days.map((day, col) => {
                const stay = row.stays.find((item) => item.col <= col && col < item.col + item.span);
                let content;
                if (stay && stay.col < col) content = <span className={stayClass(stay)}>{`${stay.guestName} (sigue)`}</span>;
                else if (stay)
                  content = (
                    <a href={links.stay(stay.id)} className={stayClass(stay)}>
                      {`${stay.before ? "← " : ""}${stay.guestName} (${stay.code}), ${RESERVATION_STATUS_LABELS[stay.status].toLowerCase()}${holdWords(stay)}${stay.after ? " →" : ""}`}
                    </a>
                  );
                else {
                  const bookings = row.bookings.filter((booking) => booking.col === col);
                  content = bookings.length > 0 ? bookings.map((booking) => <BookingLink key={booking.id} booking={booking} links={links} />) : free;
                }
                return (
                  <li key={col} className={day.today ? "occ-today" : undefined}>
                    <b>{day.label}</b>
                    {typeof content === "string" ? null : " "}
                    {content}
                  </li>
                );
              })}
            </ol>
          </li>
        );
      })}
    </ul>
  );
}

export function OccupancyLegend() {
  return (
    <ul className="occupancy-legend" aria-label="Leyenda">
      <li>
        <span className="occ-swatch occ-pending occ-unconfirmed" aria-hidden="true" /> Pendiente (retenida sin confirmar)
      </li>
      <li>
        <span className="occ-swatch occ-pending occ-awaiting-email" aria-hidden="true" /> Email sin confirmar (no retiene plaza)
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
