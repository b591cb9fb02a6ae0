import { CARD_STATUS_LABELS } from "~/schemas/card";
import type { CARD_STATUSES } from "~/db/schema-enums";
import { formatDate } from "~/utils/dates";

const DAY_MS = 24 * 3600_000;
export const EXPIRY_WARNING_DAYS = 7;

/** SPEC §4 card expiry badge. */
export function cardExpiry(expiresAt: string | null, now: Date): { tone: "active" | "warning" | "expired"; label: string } {
  if (!expiresAt) return { tone: "active", label: "Sin fecha de expiración" };
  const remaining = new Date(expiresAt).getTime() - now.getTime();
  if (remaining <= 0) return { tone: "expired", label: "Expirada" };
  const days = Math.ceil(remaining / DAY_MS);
  if (days <= EXPIRY_WARNING_DAYS) return { tone: "warning", label: days === 1 ? "Expira en 1 día" : `Expira en ${days} días` };
  return { tone: "active", label: `Expira el ${formatDate(expiresAt)}` };
}

export function CardExpiryBadge({ expiresAt, now }: { expiresAt: string | null; now: Date }) {
  const { tone, label } = cardExpiry(expiresAt, now);
  return <span className={`badge badge-${tone}`}>{label}</span>;
}

export function CardStatusBadge({ status }: { status: (typeof CARD_STATUSES)[number] }) {
  return <span className={`badge badge-${status}`}>{CARD_STATUS_LABELS[status]}</span>;
}

/** The canonical number, with the robot marker for cards first used from a mobile device. */
export function CardNumber({ cardNumber, isAnonymous }: { cardNumber: string; isAnonymous: boolean }) {
  return (
    <span className="card-number">
      {/* Door alarms have no card. */}
      {cardNumber === "" ? <span className="muted">—</span> : <code>{cardNumber}</code>}
      {isAnonymous ? (
        <span role="img" aria-label="Anónima" title="Anónima" className="card-robot">
          🤖
        </span>
      ) : null}
    </span>
  );
}

export function CardAlias({ alias }: { alias: string | null }) {
  return alias ? <>{alias}</> : <span className="muted">Sin alias</span>;
}

/** "Marta García (@marta)", the username alone, or "Sin asignar". */
export function holderLabel(holder: { firstName: string | null; lastName: string | null; username: string } | null) {
  if (!holder) return "Sin asignar";
  const name = [holder.firstName, holder.lastName].filter(Boolean).join(" ").trim();
  return name ? `${name} (@${holder.username})` : holder.username;
}
