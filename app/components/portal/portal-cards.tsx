// The portal's four cards (SPEC §2 Resident portal): Mis Reservas, Mis
// Incidencias, Notificaciones and Información del Edificio. Each shows its
// own failure message when its data could not be read.
import { Form, Link } from "@remix-run/react";
import type { ReactNode } from "react";
import { SubmitButton } from "~/components/forms";
import { BOOKING_STATUS_LABELS } from "~/schemas/facility-booking";
import { INCIDENT_CATEGORY_LABELS, INCIDENT_STATUS_LABELS, URGENCY_LABELS } from "~/schemas/incident";
import type { BuildingConditions } from "~/services/building.server";
import type { BookingJson } from "~/services/facility-bookings.server";
import type { NotificationJson } from "~/services/notifications.server";
import type { ResidentIncidentJson } from "~/services/resident-incidents.server";
import { formatDate, formatDateTime, formatTime, formatTimeRange, notificationAge, readingAge } from "~/utils/dates";

type Section<T> = { ok: true; data: T } | { ok: false; message: string };

function PortalCard({ id, title, extra, children }: { id: string; title: ReactNode; extra?: ReactNode; children: ReactNode }) {
  return (
    <section className="card portal-card" aria-labelledby={id}>
      <div className="portal-card-header">
        <h2 id={id}>{title}</h2>
        {extra}
      </div>
      {children}
    </section>
  );
}

function Failure({ message }: { message: string }) {
  return (
    <p className="alert alert-error" role="alert">
      {message}
    </p>
  );
}

const BOOKING_BADGE = { confirmed: "badge-confirmed", pending: "badge-pending", cancelled: "badge-cancelled", completed: "badge-completed" } as const;

export function BookingsCard({ bookings }: { bookings: Section<BookingJson[]> }) {
  return (
    <PortalCard
      id="bookings-title"
      title="Mis Reservas"
    >
      {!bookings.ok ? (
        <Failure message={bookings.message} />
      ) : bookings.data.length === 0 ? (
        <p className="muted">No tienes reservas.</p>
      ) : (
        <ul className="portal-list">
          {bookings.data.map((booking) => (
            <li key={booking._id} data-testid="booking" data-status={booking.status}>
              <div className="portal-item-main">
                <strong>{booking.facilityName}</strong>
                <span>{formatTimeRange(booking.startTime, booking.endTime)}</span>
                {booking.notes ? <span className="muted">{booking.notes}</span> : null}
              </div>
              <div className="portal-item-side">
                <span className={`badge ${BOOKING_BADGE[booking.status]}`}>{BOOKING_STATUS_LABELS[booking.status]}</span>
                {booking.cancellable ? (
                  <Link
                    to={`?modal=cancelar-reserva&reserva=${booking._id}`}
                    className="button button-secondary button-small"
                    aria-label={`Cancelar la reserva de ${booking.facilityName} (${formatTimeRange(booking.startTime, booking.endTime)})`}
                    preventScrollReset
                  >
                    Cancelar
                  </Link>
                ) : null}
              </div>
            </li>
          ))}
        </ul>
      )}
    </PortalCard>
  );
}

const INCIDENT_BADGE = {
  open: "badge-pending",
  "in-progress": "badge-warning",
  resolved: "badge-confirmed",
  closed: "badge-completed",
  cancelled: "badge-cancelled",
} as const;

export function IncidentsCard({ incidents }: { incidents: Section<ResidentIncidentJson[]> }) {
  return (
    <PortalCard
      id="incidents-title"
      title="Mis Incidencias"
    >
      {!incidents.ok ? (
        <Failure message={incidents.message} />
      ) : incidents.data.length === 0 ? (
        <p className="muted">No has reportado incidencias.</p>
      ) : (
        <ul className="portal-list">
          {incidents.data.map((incident) => (
            <li key={incident._id} data-testid="incident" data-status={incident.status}>
              <div className="portal-item-main">
                <strong>{incident.title}</strong>
                <span className="muted">
                  {incident.category ? INCIDENT_CATEGORY_LABELS[incident.category] : "Incidencia"} · {incident.location} · Prioridad{" "}
                  {URGENCY_LABELS[incident.priority].toLowerCase()}
                </span>
                <span className="muted">{formatDateTime(incident.createdAt)}</span>
                {incident.photos.length > 0 ? (
                  <div className="photo-strip">
                    {incident.photos.map((url, index) => (
                      <a key={url} href={url} target="_blank" rel="noreferrer">
                        <img src={url} alt={`Foto ${index + 1} de «${incident.title}»`} width={64} height={64} loading="lazy" />
                      </a>
                    ))}
                  </div>
                ) : null}
              </div>
              <div className="portal-item-side">
                <span className={`badge ${INCIDENT_BADGE[incident.status]}`}>{INCIDENT_STATUS_LABELS[incident.status]}</span>
                {incident.editable ? (
                  <span className="actions">
                    <Link
                      to={`?modal=editar-incidencia&incidencia=${incident._id}`}
                      className="button button-secondary button-small"
                      aria-label={`Editar «${incident.title}»`}
                      preventScrollReset
                    >
                      Editar
                    </Link>
                    <Link
                      to={`?modal=cancelar-incidencia&incidencia=${incident._id}`}
                      className="button button-secondary button-small"
                      aria-label={`Cancelar «${incident.title}»`}
                      preventScrollReset
                    >
                      Cancelar
                    </Link>
                  </span>
                ) : null}
              </div>
            </li>
          ))}
        </ul>
      )}
    </PortalCard>
  );
}

export function NotificationsCard({ notifications, now }: { notifications: Section<{ notifications: NotificationJson[]; unread: number }>; now: string }) {
  const unread = notifications.ok ? notifications.data.unread : 0;
  return (
    <PortalCard
      id="notifications-title"
      title={
        <>
          Notificaciones{" "}
          {unread > 0 ? (
            <span className="count-badge" data-testid="notifications-unread">
              {unread}
              <span className="visually-hidden"> sin leer</span>
            </span>
          ) : null}
        </>
      }
      extra={
        unread > 0 ? (
          <Form method="post" className="inline-form" preventScrollReset>
            <SubmitButton intent="mark-notifications-read" label="Marcar todas como leídas" busyLabel="Marcando..." className="button button-secondary button-small" />
          </Form>
        ) : null
      }
    >
      {!notifications.ok ? (
        <Failure message={notifications.message} />
      ) : notifications.data.notifications.length === 0 ? (
        <p className="muted">No tienes notificaciones.</p>
      ) : (
        <ul className="portal-list">
          {notifications.data.notifications.map((notification) => (
            <li key={notification._id} data-testid="notification" data-read={notification.read} className={notification.read ? undefined : "unread"}>
              <div className="portal-item-main">
                <strong>
                  {notification.read ? null : <span className="visually-hidden">Sin leer: </span>}
                  {notification.title}
                </strong>
                <span>{notification.message}</span>
              </div>
              <div className="portal-item-side">
                <time dateTime={notification.createdAt} className="muted">
                  {notificationAge(notification.createdAt, now)}
                </time>
              </div>
            </li>
          ))}
        </ul>
      )}
    </PortalCard>
  );
}

export function BuildingCard({ building, now }: { building: Section<BuildingConditions>; now: string }) {
  const reading = building.ok ? building.data.reading : null;
  return (
    <PortalCard id="building-title" title="Información del Edificio">
      {!building.ok ? (
        <Failure message={building.message} />
      ) : !reading ? (
        <p className="muted" data-testid="building-source">
          Sin datos de sensores
        </p>
      ) : (
        <>
          <dl className="building-info" data-testid="building-info">
            <div>
              <dt>Temperatura</dt>
              <dd data-testid="temperature">{formatNumber(reading.temperature)} °C</dd>
            </div>
            <div>
              <dt>Humedad</dt>
              <dd data-testid="humidity">{formatNumber(reading.humidity)} %</dd>
            </div>
            <div>
              <dt>WiFi</dt>
              <dd data-testid="wifi">{reading.wifiStatus}</dd>
            </div>
          </dl>
          <p className="muted" data-testid="building-source">
            Lectura del sensor del {formatDate(reading.recordedAt)} a las {formatTime(reading.recordedAt)} (
            <time dateTime={reading.recordedAt} data-testid="building-age">
              {readingAge(reading.recordedAt, now)}
            </time>
            ).
          </p>
          {reading.stale ? (
            <p data-testid="building-stale">
              <span className="badge badge-warning">Dato antiguo</span> El sensor no ha enviado lecturas en los últimos 30 minutos.
            </p>
          ) : null}
        </>
      )}
    </PortalCard>
  );
}

const numberFormat = new Intl.NumberFormat("es-ES", { maximumFractionDigits: 1 });

function formatNumber(value: number) {
  return numberFormat.format(value);
}
