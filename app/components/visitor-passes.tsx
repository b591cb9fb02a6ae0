// Visitor passes (issue 29) on screen: the portal's 'Mis Invitaciones' card, the
// 'Invitar a una visita' form, the pass just created (its PIN and QR, shown
// this once) and the confirmation of 'Anular invitación' (also /admin/invitaciones's). Plain forms that
// work without JavaScript.
import type { SubmissionResult } from "@conform-to/react";
import { getFormProps } from "@conform-to/react";
import { Form, Link } from "@remix-run/react";
import { RouteModal } from "~/components/admin/route-modal";
import { ErrorList, FormAlert, InputField, SubmitButton, useSchemaForm } from "~/components/forms";
import { MAX_VISITOR_PASS_HOURS, VISITOR_PASS_STATUS_LABELS, VisitorPassSchema } from "~/schemas/visitor-pass";
import type { VisitorPassDoorChoice, VisitorPassJson } from "~/services/visitor-passes.server";
import { formatKeyInstant } from "~/utils/access-code";
import { formatTimeRange } from "~/utils/dates";

const CLOSE_TO = "/portal";

type Section<T> = { ok: true; data: T } | { ok: false; message: string };

const PASS_BADGE = { active: "badge-confirmed", used: "badge-completed", cancelled: "badge-cancelled", expired: "badge-pending" } as const;

const doorNames = (pass: Pick<VisitorPassJson, "doors">) => pass.doors.map((door) => door.name).join(", ");

export function VisitorPassesCard({ passes }: { passes: Section<VisitorPassJson[]> }) {
  return (
    <section className="card portal-card" aria-labelledby="visitor-passes-title">
      <div className="portal-card-header">
        <h2 id="visitor-passes-title">Mis Invitaciones</h2>
        <Link to="?modal=invitar" className="button button-secondary button-small" preventScrollReset>
          Invitar a una visita
        </Link>
      </div>
      {!passes.ok ? (
        <p className="alert alert-error" role="alert">
          {passes.message}
        </p>
      ) : passes.data.length === 0 ? (
        <p className="muted">No has invitado a nadie.</p>
      ) : (
        <ul className="portal-list">
          {passes.data.map((pass) => (
            <li key={pass._id} data-testid="visitor-pass" data-status={pass.status}>
              <div className="portal-item-main">
                <strong>{pass.visitorName}</strong>
                <span>{formatTimeRange(pass.validFrom, pass.validUntil)}</span>
                <span className="muted">{doorNames(pass)}</span>
              </div>
              <div className="portal-item-side">
                <span className={`badge ${PASS_BADGE[pass.status]}`}>{VISITOR_PASS_STATUS_LABELS[pass.status]}</span>
                {pass.cancellable ? (
                  <Link
                    to={`?modal=anular-invitacion&invitacion=${pass._id}`}
                    className="button button-secondary button-small"
                    aria-label={`Anular invitación de ${pass.visitorName} (${formatTimeRange(pass.validFrom, pass.validUntil)})`}
                    preventScrollReset
                  >
                    Anular invitación
                  </Link>
                ) : null}
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function InviteVisitorModal({
  doors,
  dates,
  lastResult,
}: {
  /** The doors the resident can open at some hour (entrances first). */
  doors: VisitorPassDoorChoice[];
  dates: { min: string; max: string };
  lastResult?: SubmissionResult<string[]>;
}) {
  const [form, fields] = useSchemaForm(VisitorPassSchema, { id: "invite-visitor", lastResult });
  // The doors ticked: what was sent back with a refusal, else the entrances.
  const sent = lastResult?.initialValue?.doorIds;
  const ticked = new Set(sent === undefined ? doors.filter((door) => door.isEntrance).map((door) => door.doorId) : ([] as string[]).concat(sent as string | string[]));
  return (
    <RouteModal title="Invitar a una visita" closeTo={CLOSE_TO}>
      <Form method="post" {...getFormProps(form)} className="form" preventScrollReset>
        <FormAlert id={form.errorId} title="No se pudo crear la invitación" errors={form.errors} />
        <InputField label="Nombre de la visita" meta={fields.visitorName} autoComplete="off" />
        <InputField label="Email de la visita" meta={fields.visitorEmail} type="email" autoComplete="off" />
        <div className="field-row">
          <InputField label="Fecha" meta={fields.date} type="date" min={dates.min} max={dates.max} />
          <InputField label="Desde" meta={fields.startTime} type="time" step={300} />
          <InputField label="Hasta" meta={fields.endTime} type="time" step={300} />
        </div>
        <p className="muted">Como máximo {MAX_VISITOR_PASS_HOURS} horas, en los próximos 30 días.</p>
        <fieldset className="field">
          <legend>Puertas</legend>
          {doors.length === 0 ? (
            <p className="muted">No tienes puertas que puedas abrir con tu tarjeta.</p>
          ) : (
            doors.map((door) => (
              <label key={door.doorId} className="checkbox">
                <input type="checkbox" name={fields.doorIds.name} value={door.doorId} defaultChecked={ticked.has(door.doorId)} /> {door.name}
                {door.isEntrance ? <span className="muted"> (entrada)</span> : null}
              </label>
            ))
          )}
          <small className="muted">Solo puertas que tú puedas abrir en ese horario. Sin marcar ninguna: las entradas del edificio.</small>
          <ErrorList id={fields.doorIds.errorId} errors={fields.doorIds.errors} />
        </fieldset>
        <SubmitButton intent="create-visitor-pass" label="Invitar" busyLabel="Invitando..." />
      </Form>
    </RouteModal>
  );
}

/** The pass just created: its PIN and QR, shown this once (the visitor also gets them by mail). */
export function CreatedVisitorPassModal({ pass, qrSvg }: { pass: VisitorPassJson & { pin: string; qr: string }; qrSvg: string }) {
  return (
    <RouteModal title="Invitación enviada" closeTo={CLOSE_TO}>
      <section data-testid="created-visitor-pass">
        <p>
          Hemos enviado a {pass.visitorName} ({pass.visitorEmail}) su código de acceso. Solo se muestra ahora:
        </p>
        <p data-testid="visitor-pass-line">
          <strong>
            Código: {pass.pin} · válido del {formatKeyInstant(pass.validFrom)} al {formatKeyInstant(pass.validUntil)}
          </strong>
        </p>
        <div className="access-qr" role="img" aria-label={`Código QR de acceso ${pass.qr}`} dangerouslySetInnerHTML={{ __html: qrSvg }} />
        <dl className="details">
          <dt>Código QR</dt>
          <dd>
            <code data-testid="visitor-pass-qr">{pass.qr}</code>
          </dd>
          <dt>Puertas</dt>
          <dd>{doorNames(pass)}</dd>
        </dl>
      </section>
    </RouteModal>
  );
}

/** 'Anular invitación' confirmed: the resident's own pass in the portal, or any pass in /admin/invitaciones. */
export function CancelVisitorPassModal({ pass, closeTo = CLOSE_TO, errors }: { pass: VisitorPassJson; closeTo?: string; errors?: string[] | null }) {
  return (
    <RouteModal title="Anular invitación" closeTo={closeTo}>
      <FormAlert title="No se pudo anular la invitación" errors={errors} />
      <p tabIndex={-1} data-autofocus>
        ¿Seguro que quieres anular esta invitación? Su código dejará de abrir las puertas.
      </p>
      <p>
        <strong>{pass.visitorName}</strong>
        {closeTo === CLOSE_TO || !pass.resident ? "" : `, invitada por ${pass.resident.name}`}, {formatTimeRange(pass.validFrom, pass.validUntil)} · {doorNames(pass)}.
      </p>
      <Form method="post" className="modal-actions" preventScrollReset>
        <input type="hidden" name="id" value={pass._id} />
        <SubmitButton intent="cancel-visitor-pass" label="Anular invitación" busyLabel="Anulando..." className="button button-danger" />
      </Form>
    </RouteModal>
  );
}
