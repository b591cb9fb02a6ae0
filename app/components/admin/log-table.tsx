import { Link } from "@remix-run/react";
import { CardNumber } from "~/components/admin/card-badges";
import { ACCESS_RESULT_LABELS, CREDENTIAL_KIND_LABELS, type AccessOutcome } from "~/schemas/access-log";
import { formatDateTimeSeconds, formatTimeSeconds } from "~/utils/dates";

/** One line of the table: a log row, or several merged (SPEC §2). Dates are ISO strings. */
export type LogLine = {
  id: string;
  timestamp: string;
  firstTimestamp: string;
  count: number;
  cardNumber: string;
  username: string | null;
  doorName: string;
  accessGranted: boolean;
  /** Granted, denied, a door alarm (never either), or a denial resolved by its card's approval (issue 40). */
  outcome: AccessOutcome;
  resolvedAt: string | null;
  reasonText: string;
  isAnonymous: boolean;
  offline: boolean;
  /** Card, or a door key's PIN or QR (issue 29); a key's row names its holder instead of a user. */
  credentialKind: "card" | "pin" | "qr";
  holder: string | null;
  /** A denied row offers approving its card when that would change something (approvableLogRows). */
  canApprove: boolean;
};

export function LogTable({ lines, approveHref }: { lines: LogLine[]; approveHref: (id: string) => string }) {
  return (
    <div className="table-wrap">
      <table className="data log-table stack-on-phone">
        <caption className="visually-hidden">Registros de acceso</caption>
        <thead>
          <tr>
            <th scope="col">Fecha</th>
            <th scope="col">Tarjeta</th>
            <th scope="col">Usuario</th>
            <th scope="col">Puerta</th>
            <th scope="col">Resultado</th>
            <th scope="col">Motivo</th>
            <th scope="col">Acciones</th>
          </tr>
        </thead>
        <tbody>
          {lines.map((line) => (
            <LogRow key={line.id} line={line} approveHref={approveHref} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The badge's colour class per outcome. */
const RESULT_BADGE: Record<AccessOutcome, string> = { granted: "badge-granted", denied: "badge-denied", alarm: "badge-alarm", resolved: "badge-resolved" };

function LogRow({ line, approveHref }: { line: LogLine; approveHref: (id: string) => string }) {
  const result = line.outcome;
  return (
    <tr data-testid="log-row" data-card-number={line.cardNumber} data-count={line.count} data-result={result}>
      <td data-label="Fecha">
        <time dateTime={line.timestamp}>{formatDateTimeSeconds(line.timestamp)}</time>
        {line.count > 1 ? (
          <>
            {" "}
            <span className="badge log-count" data-testid="log-count" title={`Desde las ${formatTimeSeconds(line.firstTimestamp)}`}>
              ×{line.count}
              <span className="visually-hidden"> intentos agrupados</span>
            </span>
          </>
        ) : null}
      </td>
      <td data-label="Tarjeta" data-testid="log-credential">
        {line.credentialKind === "card" ? (
          <CardNumber cardNumber={line.cardNumber} isAnonymous={line.isAnonymous} />
        ) : (
          <span className="badge">{CREDENTIAL_KIND_LABELS[line.credentialKind]}</span>
        )}
      </td>
      <td data-label="Usuario" data-testid="log-holder">
        {line.holder ?? line.username ?? <span className="muted">—</span>}
      </td>
      <td data-label="Puerta">{line.doorName}</td>
      <td data-label="Resultado">
        <span
          className={`badge ${RESULT_BADGE[result]}`}
          title={line.resolvedAt ? `Denegado; resuelto al aprobar la tarjeta el ${formatDateTimeSeconds(line.resolvedAt)}` : undefined}
        >
          {ACCESS_RESULT_LABELS[result]}
        </span>
        {line.offline ? (
          <>
            {" "}
            <span className="badge log-offline">Sin conexión</span>
          </>
        ) : null}
      </td>
      <td data-label="Motivo">{line.reasonText}</td>
      <td data-label="Acciones">
        {line.canApprove ? (
          // Opens the cards screen's confirmation (issue 40, point 15): what to grant is chosen there.
          <Link
            to={approveHref(line.id)}
            className="button button-small"
            preventScrollReset
            aria-label={`Aprobar tarjeta ${line.cardNumber} en ${line.doorName}`}
          >
            Aprobar
          </Link>
        ) : null}
      </td>
    </tr>
  );
}
