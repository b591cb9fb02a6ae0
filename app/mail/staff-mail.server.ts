// Short notices for the house's staff (STAFF_EMAIL): a new booking, enquiry,
// visit request, public fault report or resident's incident, or a failed
// backup, or a door alarm, each with a link to where the admin panel shows it.
import type { AnonymousReservation, Consultation, Incident } from "~/db/schema";
import { INCIDENT_CATEGORY_LABELS, URGENCY_LABELS } from "~/schemas/incident";
import { RESERVATION_TYPE_LABELS, ROOM_TYPE_LABELS } from "~/schemas/reservation";
import { BACKUP_TRIGGER_LABELS, type BackupTrigger } from "~/schemas/backup";
import { DOOR_ALARM_LABELS, type DoorAlarmKind } from "~/doors/reasons";
import { formatDateTime, formatIsoDay } from "~/utils/dates";
import { getEnv } from "~/utils/env.server";
import type { Mail } from "~/utils/mail.server";
import { composeMail } from "./layout.server";

type StaffNotice = Omit<Mail, "to">;

function adminUrl(path: string, params: Record<string, string>) {
  return `${getEnv().PUBLIC_URL}${path}?${new URLSearchParams(params)}`;
}

function notice(subject: string, summary: string, rows: Array<[string, string | null | undefined]>, link: { label: string; url: string }): StaffNotice {
  return {
    subject,
    ...composeMail({
      greeting: "Hola:",
      paragraphs: [summary],
      rows: rows.filter((row): row is [string, string] => Boolean(row[1])),
      link,
    }),
  };
}

export function newReservationStaffMail(reservation: AnonymousReservation): StaffNotice {
  const type = RESERVATION_TYPE_LABELS[reservation.reservationType];
  return notice(
    `Nueva reserva: ${reservation.reservationCode}`,
    `${reservation.guestName} ha hecho una reserva pendiente de confirmación.`,
    [
      ["Código de reserva", reservation.reservationCode],
      ["Tipo", reservation.roomType ? `${type} (${ROOM_TYPE_LABELS[reservation.roomType]})` : type],
      ["Fecha de entrada", formatIsoDay(reservation.startDate)],
      ["Fecha de salida", formatIsoDay(reservation.endDate)],
      ["Email", reservation.guestEmail],
      ["Teléfono", reservation.guestPhone],
      ["Solicitudes especiales", reservation.specialRequests],
    ],
    { label: "Ver la reserva", url: adminUrl("/admin/reservations", { modal: "detail", reservation: reservation.id }) },
  );
}

/**
 * A new enquiry, or a visit request: its day and hour once, and the visitor's
 * comments (the stored message repeats the day and hour, so it is not shown).
 */
export function newConsultationStaffMail(consultation: Consultation, { comments }: { comments?: string } = {}): StaffNotice {
  const visit = consultation.kind === "visita";
  return notice(
    visit ? `Nueva solicitud de visita: ${consultation.nombre}` : `Nueva consulta: ${consultation.nombre}`,
    visit ? `${consultation.nombre} quiere visitar la casa.` : `${consultation.nombre} ha enviado una consulta.`,
    [
      ["Email", consultation.email],
      ["Teléfono", consultation.telefono],
      ...(visit
        ? ([
            ["Fecha preferida", consultation.visitDate ? formatIsoDay(consultation.visitDate) : null],
            ["Hora preferida", consultation.visitTime],
            ["Comentarios", comments],
          ] as Array<[string, string | null | undefined]>)
        : ([["Mensaje", consultation.mensaje]] as Array<[string, string]>)),
    ],
    { label: "Ver la consulta", url: adminUrl("/admin/consultations", { modal: "message", consultation: consultation.id }) },
  );
}

/** A fault reported on the public page or by a resident in the portal. */
export function newIncidentStaffMail(incident: Incident): StaffNotice {
  const fromResident = incident.source === "resident";
  const reporter = incident.reporterName ?? incident.reportedBy ?? "Alguien";
  return notice(
    fromResident ? `Nueva incidencia de residente: ${incident.title}` : `Nuevo aviso de avería: ${incident.title}`,
    fromResident
      ? `${reporter} ha reportado una incidencia desde el portal de residentes.`
      : `${reporter} ha enviado un aviso de avería desde la web.`,
    [
      ["Urgencia", URGENCY_LABELS[incident.urgency]],
      ["Categoría", incident.category ? INCIDENT_CATEGORY_LABELS[incident.category] : null],
      ["Ubicación", incident.location],
      [fromResident ? "Unidad" : "Piso / departamento", incident.floor],
      ["Descripción", incident.description],
      ["Fotos", incident.photos?.length ? String(incident.photos.length) : null],
    ],
    { label: "Ver la incidencia", url: adminUrl("/admin/incidents", { modal: "edit", incident: incident.id }) },
  );
}

/** A backup that could not be made (app/services/backups.server.ts). */
export function backupFailedStaffMail(failure: { at: Date; trigger: BackupTrigger; message: string; directory: string }): StaffNotice {
  return notice(
    "Copia de seguridad fallida",
    "No se pudo hacer la copia de seguridad de la casa. Revisa el motivo y crea una copia a mano cuando esté resuelto.",
    [
      ["Fecha", formatDateTime(failure.at)],
      ["Tipo", BACKUP_TRIGGER_LABELS[failure.trigger]],
      ["Carpeta", failure.directory],
      ["Motivo", failure.message],
    ],
    { label: "Ver las copias de seguridad", url: `${getEnv().PUBLIC_URL}/admin/copias` },
  );
}

const DOOR_ALARM_SUMMARIES: Record<DoorAlarmKind, string> = {
  forced_open: "Una puerta se ha abierto sin que nadie tuviera acceso concedido. Se ha abierto una incidencia.",
  held_open: "Una puerta lleva abierta más tiempo del permitido tras un acceso.",
  door_offline: "Una puerta lleva más de dos minutos sin conexión con el sistema.",
};

/** A door alarm (app/services/door-alarms.server.ts): one notice per alarm, when it is raised. */
export function doorAlarmStaffMail(alarm: { kind: DoorAlarmKind; raisedAt: Date; doorName: string; doorLocation: string; doorCode: string }): StaffNotice {
  const label = DOOR_ALARM_LABELS[alarm.kind];
  return notice(
    `Alarma: ${label} · ${alarm.doorName}`,
    DOOR_ALARM_SUMMARIES[alarm.kind],
    [
      ["Puerta", `${alarm.doorName} (${alarm.doorCode})`],
      ["Ubicación", alarm.doorLocation],
      ["Alarma", label],
      ["Fecha", formatDateTime(alarm.raisedAt)],
    ],
    { label: "Ver las alarmas", url: `${getEnv().PUBLIC_URL}/admin` },
  );
}

/** A door's keypad locked after 8 wrong PINs in 10 minutes (the access service sends it, once per lockout). */
export function keypadLockedStaffMail({ doorName, doorCode, at, until }: { doorName: string | null; doorCode: string; at: Date; until: Date }): StaffNotice {
  const door = doorName ? `${doorName} (${doorCode})` : doorCode;
  return notice(
    `Teclado bloqueado: ${door}`,
    `El teclado de la puerta ${door} se ha bloqueado por intentos fallidos: 8 códigos erróneos en 10 minutos.`,
    [
      ["Puerta", door],
      ["Bloqueado desde", formatDateTime(at)],
      ["Bloqueado hasta", formatDateTime(until)],
    ],
    { label: "Ver el registro de accesos", url: adminUrl("/admin/logs", { status: "denied" }) },
  );
}
