// How a guest is told their stay's key (browser-safe: the lookup page, the
// mail and the API say it the same way).
import { formatDate, formatTime } from "./dates";

/** A key's instant as the guest reads it: "10/12/2026 15:00" (Europe/Madrid). */
export function formatKeyInstant(value: string | Date) {
  return `${formatDate(value)} ${formatTime(value)}`;
}

/** 'Tu código de acceso: 482913 · válido del 10/12/2026 15:00 al 14/12/2026 11:00'. */
export function accessCodeLine({ pin, validFrom, validUntil }: { pin: string; validFrom: string | Date; validUntil: string | Date }) {
  return `Tu código de acceso: ${pin} · válido del ${formatKeyInstant(validFrom)} al ${formatKeyInstant(validUntil)}`;
}
