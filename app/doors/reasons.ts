// Reason codes of access decisions (docs/mqtt.md) and their Spanish texts.
// Browser-safe: the admin screens import it (only a type comes from the schema).
import type { ACCESS_REASONS } from "~/db/schema";

export type AccessReason = (typeof ACCESS_REASONS)[number];

/** What the admin reads next to each access log row. */
export const ACCESS_REASON_LABELS: Record<AccessReason, string> = {
  granted: "Acceso concedido",
  unknown_card: "Tarjeta desconocida",
  card_pending: "Tarjeta pendiente de aprobación",
  card_inactive: "Tarjeta inactiva",
  card_suspended: "Tarjeta suspendida",
  card_expired: "Tarjeta expirada",
  no_permission: "Sin permiso para esta puerta",
  user_inactive: "Usuario inactivo",
  door_maintenance: "Puerta en mantenimiento",
  door_emergency: "Puerta en emergencia",
  unknown_door: "Puerta desconocida",
  invalid_request: "Solicitud no válida",
  offline_deny: "Denegado sin conexión",
  booking_window: "Acceso por reserva de instalación",
  outside_booking_window: "Fuera del horario de la reserva",
  user_suspended: "Usuario suspendido",
  outside_schedule: "Fuera de horario",
  invalid_key: "Código no válido",
  outside_key_window: "Fuera del periodo de la llave",
  keypad_locked: "Teclado bloqueado por intentos fallidos",
};

/** Second line of the door's display after a denial: at most 16 characters. */
export const ACCESS_REASON_DISPLAY: Record<AccessReason, string> = {
  granted: "Adelante",
  unknown_card: "No registrada",
  card_pending: "Pend. aprobación",
  card_inactive: "Tarjeta inactiva",
  card_suspended: "Tarj. suspendida",
  card_expired: "Tarjeta expirada",
  no_permission: "Sin permiso",
  user_inactive: "Usuario inactivo",
  door_maintenance: "En mantenimiento",
  door_emergency: "Emergencia",
  unknown_door: "Puerta no válida",
  invalid_request: "Error de lectura",
  offline_deny: "Sin conexión",
  booking_window: "Reserva activa",
  outside_booking_window: "Fuera de reserva",
  user_suspended: "Usuario suspend.",
  outside_schedule: "Fuera de horario",
  invalid_key: "Código no válido",
  outside_key_window: "Fuera de periodo",
  // 'Teclado bloqueado' is 17 characters: one too many for the LCD's line.
  keypad_locked: "Teclado bloq.",
};
