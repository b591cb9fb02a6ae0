import { Form, useNavigation } from "@remix-run/react";
import { CardNumber } from "~/components/admin/card-badges";
import { ACCESS_RESULT_LABELS, CREDENTIAL_KIND_LABELS } from "~/schemas/access-log";
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
  reasonText: string;
  isAnonymous: boolean;
  offline: boolean;
  /** Card, or a door key's PIN or QR (issue 29); a key's row names its holder instead of a user. */
  credentialKind: "card" | "pin" | "qr";
  holder: string | null;
  /** A denied row offers approving its card when that would change something (approvableLogRows). */
  canApprove: boolean;
};

export function LogTable({ lines }: { lines: LogLine[] }) {
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
            <LogRow key={line.id} line={line} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function LogRow({ line }: { line: LogLine }) {
  const result = line.accessGranted ? "granted" : "denied";
  return (
    <tr data-testid="log-row" data-card-number={line.cardNumber} data-count={line.count}>
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
        <span className={`badge badge-${result}`}>{ACCESS_RESULT_LABELS[result]}</span>
        {line.offline ? (
          <>
            {" "}
            <span className="badge log-offline">Sin conexión</span>
          </>
        ) : null}
      </td>
      <td data-label="Motivo">{line.reasonText}</td>
      <td data-label="Acciones">{line.canApprove ? <ApproveForm line={line} /> : null}</td>
    </tr>
  );
}

/** Approving runs on the server (works without JavaScript); the answer is a toast. */
function ApproveForm({ line }: { line: LogLine }) {
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("logId") === line.id;
  return (
    <Form method="post" className="actions" preventScrollReset>
      <input type="hidden" name="logId" value={line.id} />
      <button
        type="submit"
        name="intent"
        value="approve-card"
        className="button button-small"
        disabled={busy}
        aria-label={`Aprobar tarjeta ${line.cardNumber} en ${line.doorName}`}
        title="Activa la tarjeta si está pendiente, le da acceso a esta puerta y borra sus registros denegados"
      >
        {busy ? "Aprobando..." : "Aprobar"}
      </button>
    </Form>
  );
}
