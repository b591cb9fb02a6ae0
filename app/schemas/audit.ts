// The audit trail's vocabulary (docs/audit.md): who acts, on what, doing what,
// with their Spanish labels, and the filters of /admin/auditoria and
// GET /api/audit. Browser-safe (no drizzle).
import * as z from "zod/mini";
import { isoDay, pagingFields, text } from "./fields";

/** SPEC-style sizes: 50 events a page on the screen, up to 200 through the API. */
export const AUDIT_PAGE_SIZE = 50;
export const AUDIT_API_MAX_LIMIT = 200;
export const AUDIT_SEARCH_MAX_LENGTH = 100;
export const AUDIT_ACTOR_MAX_LENGTH = 50;

/** Who acted: a user's role, or the app itself, a guest (by reservation code), or nobody signed in. */
export const AUDIT_ROLES = ["admin", "user", "sistema", "huesped", "anonimo"] as const;
export type AuditRole = (typeof AUDIT_ROLES)[number];

export const AUDIT_ROLE_LABELS: Record<AuditRole, string> = {
  admin: "Administrador",
  user: "Residente",
  sistema: "Sistema",
  huesped: "Huésped",
  anonimo: "Sin sesión",
};

export const AUDIT_ENTITY_LABELS = {
  door: "Puerta",
  card: "Tarjeta",
  user: "Usuario",
  reservation: "Reserva de huésped",
  room: "Habitación",
  consultation: "Consulta",
  incident: "Incidencia",
  access_log: "Registro de accesos",
  booking: "Reserva de instalación",
  sensor: "Sensor del edificio",
  session: "Sesión",
  audit: "Auditoría",
  access_group: "Grupo de acceso",
  building: "Edificio",
  holiday: "Festivo",
  visitor_pass: "Invitación de visita",
  backup: "Copia de seguridad",
} as const;
export type AuditEntityType = keyof typeof AUDIT_ENTITY_LABELS;
export const AUDIT_ENTITY_TYPES = Object.keys(AUDIT_ENTITY_LABELS) as [AuditEntityType, ...AuditEntityType[]];

/** Every action the app records, `<entity>.<what>`, with its label. */
export const AUDIT_ACTION_LABELS = {
  "door.create": "Puerta creada",
  "door.update": "Puerta editada",
  "door.status": "Estado de puerta cambiado",
  "door.messages": "Mensajes de puerta cambiados",
  "door.delete": "Puerta eliminada",
  "door.rotate_secret": "Credencial del puente renovada",
  "card.status": "Estado de tarjeta cambiado",
  "card.alias": "Alias de tarjeta cambiado",
  "card.update": "Tarjeta editada",
  "card.permission_grant": "Acceso concedido",
  "card.permission_deny": "Acceso denegado",
  "card.permission_remove": "Acceso retirado",
  "card.approve": "Tarjeta aprobada",
  "card.delete": "Tarjeta eliminada",
  "card.assign": "Tarjeta asignada",
  "card.unassign": "Tarjeta desasignada",
  "card.reassign": "Tarjeta reasignada",
  "user.create": "Usuario creado",
  "user.update": "Usuario editado",
  "user.status": "Estado de usuario cambiado",
  "user.role": "Rol de usuario cambiado",
  "user.password_reset": "Contraseña restablecida",
  "user.delete": "Usuario eliminado",
  "user.profile": "Perfil actualizado",
  "user.password": "Contraseña cambiada",
  "reservation.create": "Reserva solicitada",
  "reservation.confirm": "Reserva confirmada",
  "reservation.cancel": "Reserva cancelada",
  "reservation.status": "Estado de reserva cambiado",
  "reservation.notes": "Notas de reserva cambiadas",
  "reservation.room": "Habitación de reserva cambiada",
  "reservation.dates": "Fechas de reserva cambiadas",
  "reservation.email_confirm": "Email de reserva confirmado",
  "reservation.expire": "Reserva caducada",
  "room.create": "Habitación creada",
  "room.update": "Habitación editada",
  "room.delete": "Habitación eliminada",
  "consultation.create": "Consulta recibida",
  "consultation.status": "Estado de consulta cambiado",
  "consultation.notes": "Notas de consulta cambiadas",
  "consultation.delete": "Consulta eliminada",
  "consultation.purge": "Consultas antiguas eliminadas",
  "incident.create": "Incidencia creada",
  "incident.update": "Incidencia editada",
  "incident.status": "Estado de incidencia cambiado",
  "incident.cancel": "Incidencia cancelada",
  "incident.delete": "Incidencia eliminada",
  "incident.purge": "Incidencias antiguas eliminadas",
  "access_log.cleanup": "Registros denegados eliminados",
  "access_log.export": "Registros de accesos exportados",
  "sensor.credential": "Credencial de sensor renovada",
  "booking.create": "Reserva de instalación creada",
  "booking.cancel": "Reserva de instalación cancelada",
  "session.sign_in": "Inicio de sesión",
  "session.sign_in_refused": "Inicio de sesión rechazado",
  "session.lockout": "Bloqueo por intentos fallidos",
  "session.sign_out": "Cierre de sesión",
  "audit.purge": "Eventos de auditoría purgados",
  "audit.key": "Firma de la auditoría activada",
  "audit.export": "Auditoría exportada",
  "backup.create": "Copia de seguridad creada",
  "backup.download": "Copia de seguridad descargada",
  "backup.restore": "Copia de seguridad restaurada",
  "access_group.create": "Grupo de acceso creado",
  "access_group.update": "Grupo de acceso editado",
  "access_group.delete": "Grupo de acceso eliminado",
  "user.access_groups": "Grupos de acceso de usuario cambiados",
  "building.default_group": "Grupo por defecto cambiado",
  "building.lockdown": "Bloqueo general activado",
  "building.lockdown_lift": "Bloqueo general levantado",
  "holiday.create": "Festivo añadido",
  "holiday.delete": "Festivo eliminado",
  "visitor_pass.create": "Invitación creada",
  "visitor_pass.cancel": "Invitación anulada",
} as const;
export type AuditAction = keyof typeof AUDIT_ACTION_LABELS;
export const AUDIT_ACTIONS = Object.keys(AUDIT_ACTION_LABELS) as [AuditAction, ...AuditAction[]];

/** What an event's details show of a field: the label of each known key, else the key itself. */
export const AUDIT_FIELD_LABELS: Record<string, string> = {
  alias: "Alias",
  status: "Estado",
  name: "Nombre",
  location: "Ubicación",
  description: "Descripción",
  doorId: "ID de puerta",
  door: "Puerta",
  card: "Tarjeta",
  cardNumber: "Número de tarjeta",
  granted: "Acceso",
  username: "Usuario",
  email: "Email",
  role: "Rol",
  password: "Contraseña",
  notes: "Notas",
  adminNotes: "Notas del administrador",
};

const dayOrInstant = (message: string) =>
  z.union([isoDay(message), z.iso.datetime({ offset: true, error: message })], { error: message });

/** The list's filters (screen, API and export). `from` and `to` are days in Madrid (inclusive) or ISO instants. */
export const AuditFiltersSchema = z.object({
  actor: z.optional(text(AUDIT_ACTOR_MAX_LENGTH)),
  entityType: z.optional(z.enum(AUDIT_ENTITY_TYPES, { error: `entityType debe ser uno de: ${AUDIT_ENTITY_TYPES.join(", ")}` })),
  action: z.optional(z.enum(AUDIT_ACTIONS, { error: "action no es una acción registrada" })),
  from: z.optional(dayOrInstant("from debe ser una fecha AAAA-MM-DD o un instante ISO 8601")),
  to: z.optional(dayOrInstant("to debe ser una fecha AAAA-MM-DD o un instante ISO 8601")),
  search: z.optional(text(AUDIT_SEARCH_MAX_LENGTH)),
});
export type AuditFilters = z.infer<typeof AuditFiltersSchema>;

/** GET /api/audit. */
export const AuditListQuerySchema = z.extend(AuditFiltersSchema, pagingFields(AUDIT_API_MAX_LIMIT, AUDIT_PAGE_SIZE));

/** GET /api/audit/export: the filters and the format (csv, the only one). */
export const AuditExportQuerySchema = z.extend(AuditFiltersSchema, {
  format: z._default(z.enum(["csv"], { error: "format debe ser csv" }), "csv"),
});
