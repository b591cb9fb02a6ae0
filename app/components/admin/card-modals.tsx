import { describeSchedule } from "~/doors/schedule";
import { getFormProps, type SubmissionResult } from "@conform-to/react";
import { Form, Link } from "@remix-run/react";
import { FormAlert, InputField, SelectField, SubmitButton, useSchemaForm } from "~/components/forms";
import { CARD_TYPE_LABELS, CardAliasSchema, CardApproveSchema, CardPermissionSchema } from "~/schemas/card";
import type { CardDetail } from "~/services/cards.server";
import { formatDateTime } from "~/utils/dates";
import { CardAlias, CardExpiryBadge, CardNumber, CardStatusBadge, holderLabel } from "./card-badges";
import { RouteModal } from "./route-modal";

export type { CardDetail };

export function CardNotFoundModal({ closeTo }: { closeTo: string }) {
  return (
    <RouteModal title="Tarjeta no encontrada" closeTo={closeTo}>
      <p>La tarjeta no existe o ha sido eliminada.</p>
    </RouteModal>
  );
}

type Results = { alias?: SubmissionResult<string[]>; permission?: SubmissionResult<string[]>; revoke?: SubmissionResult<string[]> };

export function CardDetailModal({ detail, now, closeTo, linkTo, results }: {
  detail: CardDetail;
  now: Date;
  closeTo: string;
  /** The page URL with this modal replaced by another one of this card. */
  linkTo: (modal: "delete" | "approve") => string;
  results: Results;
}) {
  const { card } = detail;
  const doorNames = new Map(detail.doors.map((door) => [door.doorId, `${door.name} (${door.location})`]));
  return (
    <RouteModal title={`Tarjeta ${card.cardNumber}`} closeTo={closeTo}>
      <dl className="details">
        <dt>Número</dt>
        <dd>
          <CardNumber cardNumber={card.cardNumber} isAnonymous={card.isAnonymous} />
        </dd>
        <dt>Alias</dt>
        <dd>
          <CardAlias alias={card.alias} />
        </dd>
        <dt>Titular</dt>
        <dd data-testid="card-holder">{holderLabel(card.userId)}</dd>
        <dt>Estado</dt>
        <dd>
          <CardStatusBadge status={card.status} />
        </dd>
        <dt>Tipo</dt>
        <dd>{CARD_TYPE_LABELS[card.type]}</dd>
        <dt>Expiración</dt>
        <dd>
          <CardExpiryBadge expiresAt={card.expiresAt} now={now} />
        </dd>
        <dt>Último uso</dt>
        <dd>{card.usageStats.lastUsed ? formatDateTime(card.usageStats.lastUsed) : "Nunca"}</dd>
        <dt>Intentos totales</dt>
        <dd data-testid="card-attempts">{card.usageStats.totalAccessAttempts}</dd>
        <dt>Accesos exitosos</dt>
        <dd data-testid="card-successes">{card.usageStats.successfulAccesses}</dd>
        <dt>Registrada</dt>
        <dd>{formatDateTime(card.createdAt)}</dd>
        {card.description ? (
          <>
            <dt>Descripción</dt>
            <dd>{card.description}</dd>
          </>
        ) : null}
      </dl>

      <section aria-labelledby="card-alias-title" className="card-section">
        <h3 id="card-alias-title">Editar alias</h3>
        {/* Remounted when the stored alias changes, so the field shows it. */}
        <AliasForm key={card.alias ?? ""} cardId={card._id} alias={card.alias} lastResult={results.alias} />
      </section>

      <section aria-labelledby="card-permissions-title" className="card-section">
        <h3 id="card-permissions-title">Permisos de puertas</h3>
        <FormAlert title="Error al actualizar" errors={results.revoke?.error?.[""]} />
        {card.permissions.length === 0 ? (
          <p className="muted">Esta tarjeta no tiene permisos en ninguna puerta.</p>
        ) : (
          <ul className="card-permissions">
            {card.permissions.map((permission) => {
              const doorName = doorNames.get(permission.doorId) ?? permission.doorId;
              return (
                <li key={permission.doorId}>
                  <span>{doorName}</span>
                  <span className={`badge badge-${permission.granted ? "granted" : "denied"}`}>
                    {permission.granted ? "Permitido" : "Denegado"}
                  </span>
                  {permission.granted && permission.schedule.length > 0 ? <span className="muted">{describeSchedule(permission.schedule)}</span> : null}
                  <Form method="post" className="inline-form" preventScrollReset>
                    <input type="hidden" name="id" value={card._id} />
                    <input type="hidden" name="doorId" value={permission.doorId} />
                    <button
                      type="submit"
                      name="intent"
                      value="revoke-permission"
                      className="button button-secondary button-small"
                      aria-label={`Revocar permiso en ${doorName}`}
                    >
                      Revocar
                    </button>
                  </Form>
                </li>
              );
            })}
          </ul>
        )}
        {detail.availableDoors.length === 0 ? (
          <p className="muted">
            {detail.doors.length === 0 ? "No hay puertas registradas." : "Todas las puertas tienen ya un permiso para esta tarjeta."}
          </p>
        ) : (
          <PermissionForm
            key={card.permissions.map((permission) => permission.doorId).join()}
            cardId={card._id}
            doors={detail.availableDoors}
            lastResult={results.permission}
          />
        )}
      </section>

      <div className="modal-actions">
        {card.status === "pending" ? (
          <Link to={linkTo("approve")} className="button" preventScrollReset>
            Aprobar
          </Link>
        ) : null}
        <Link to={linkTo("delete")} className="button button-danger" preventScrollReset>
          Eliminar
        </Link>
      </div>
    </RouteModal>
  );
}

function AliasForm({ cardId, alias, lastResult }: { cardId: string; alias: string | null; lastResult?: SubmissionResult<string[]> }) {
  const [form, fields] = useSchemaForm(CardAliasSchema, {
    id: `card-alias-${cardId}`,
    lastResult,
    defaultValue: { alias: alias ?? "" },
  });
  return (
    <Form method="post" {...getFormProps(form)} className="form" preventScrollReset>
      <FormAlert id={form.errorId} title="Error al actualizar" errors={form.errors} />
      <InputField label="Alias" meta={fields.alias} hint="Vacío para quitar el alias." data-autofocus />
      <div>
        <SubmitButton intent="set-alias" label="Guardar Alias" busyLabel="Guardando..." />
      </div>
      <input type="hidden" name="id" value={cardId} />
    </Form>
  );
}

function PermissionForm({ cardId, doors, lastResult }: { cardId: string; doors: CardDetail["availableDoors"]; lastResult?: SubmissionResult<string[]> }) {
  const [form, fields] = useSchemaForm(CardPermissionSchema, {
    id: `card-permission-${cardId}`,
    lastResult,
    defaultValue: { granted: "true" },
  });
  return (
    <Form method="post" {...getFormProps(form)} className="form" preventScrollReset>
      <FormAlert id={form.errorId} title="Error al actualizar" errors={form.errors} />
      <div className="field-row">
        <SelectField
          label="Puerta"
          meta={fields.doorId}
          placeholder="Selecciona una puerta"
          options={doors.map((door) => ({ value: door.doorId, label: `${door.name} (${door.location})` }))}
        />
        <SelectField
          label="Acceso"
          meta={fields.granted}
          options={[
            { value: "true", label: "Permitir" },
            { value: "false", label: "Denegar" },
          ]}
        />
      </div>
      <InputField label="Horario (opcional)" meta={fields.schedule} hint="Por ejemplo «L-V 08:00-20:00; S 10:00-14:00». Vacío: siempre." />
      <div>
        <SubmitButton intent="grant-permission" label="Guardar Permiso" busyLabel="Guardando..." />
      </div>
      <input type="hidden" name="id" value={cardId} />
    </Form>
  );
}

export function DeleteCardModal({ detail, closeTo, lastResult }: { detail: CardDetail; closeTo: string; lastResult?: SubmissionResult<string[]> }) {
  const { card } = detail;
  return (
    <RouteModal title="Eliminar tarjeta" closeTo={closeTo}>
      {card.userId ? (
        // SPEC: an assigned card is not deleted; say so instead of asking.
        <div className="alert alert-error" role="alert">
          No se puede eliminar una tarjeta asignada a un usuario. Por favor, desasigna la tarjeta primero.
        </div>
      ) : (
        <>
          <FormAlert title="Error al eliminar" errors={lastResult?.error?.[""]} />
          {/* Focus starts on the question, not on the destructive button. */}
          <p tabIndex={-1} data-autofocus>
            ¿Estás seguro de que quieres eliminar esta tarjeta?
          </p>
          <p>
            <CardNumber cardNumber={card.cardNumber} isAnonymous={card.isAnonymous} /> · <CardAlias alias={card.alias} />. Sus
            permisos de puertas se eliminarán; el registro de accesos se conserva.
          </p>
          <Form method="post" className="modal-actions" preventScrollReset>
            <input type="hidden" name="id" value={card._id} />
            <SubmitButton intent="delete-card" label="Eliminar" busyLabel="Eliminando..." className="button button-danger" />
          </Form>
        </>
      )}
    </RouteModal>
  );
}

/**
 * The approval's confirmation, on the cards screen and from a denied row of
 * the access log (`fromLog`: that row, its door chosen first; a card that is
 * not pending may still get the door). It says what will be granted: the
 * door with its hours, or the holder's access group (issue 40, point 15).
 */
export function ApproveCardModal({
  detail,
  closeTo,
  lastResult,
  fromLog,
}: {
  detail: CardDetail;
  closeTo: string;
  lastResult?: SubmissionResult<string[]>;
  fromLog?: { logId: string; doorId: string | null };
}) {
  const { card } = detail;
  const [form, fields] = useSchemaForm(CardApproveSchema, {
    id: `card-approve-${card._id}`,
    lastResult,
    defaultValue: fromLog?.doorId ? { doorId: fromLog.doorId } : undefined,
  });
  const approvable = fromLog ? !(card.status === "active" && card.userId) : card.status === "pending";
  return (
    <RouteModal title={`Aprobar tarjeta ${card.cardNumber}`} closeTo={closeTo}>
      {!approvable && !lastResult ? (
        <p>{fromLog ? "La tarjeta ya está activa y asignada: cambia sus permisos desde Gestionar Tarjetas." : "La tarjeta no está pendiente de aprobación."}</p>
      ) : (
        <Form method="post" {...getFormProps(form)} className="form" preventScrollReset>
          <FormAlert id={form.errorId} errors={form.errors} />
          <p>
            {card.status === "pending" ? "La tarjeta pasará de Pendiente a Activa. " : null}
            Puedes darle acceso a una puerta con su horario{card.userId ? ", o añadir a su titular a un grupo de acceso" : ""}.
          </p>
          <SelectField
            label="Conceder acceso a (opcional)"
            meta={fields.doorId}
            placeholder="Ninguna puerta"
            data-autofocus
            options={detail.doors.map((door) => ({ value: door.doorId, label: `${door.name} (${door.location})` }))}
          />
          <InputField
            label="Horario en esa puerta (opcional)"
            meta={fields.schedule}
            hint="Por ejemplo «L-V 08:00-20:00; S 10:00-14:00». Vacío: a cualquier hora, por encima del horario de sus grupos."
          />
          {card.userId ? (
            <SelectField
              label="Añadir a su titular al grupo (opcional)"
              meta={fields.groupId}
              placeholder="Ningún grupo"
              options={detail.groups.map((group) => ({ value: group.id, label: group.name }))}
            />
          ) : null}
          {fromLog ? <p className="muted">Sus registros denegados quedarán marcados como resueltos; no se borra ninguno.</p> : null}
          <div>
            <SubmitButton intent="approve-card" label="Aprobar Tarjeta" busyLabel="Aprobando..." />
          </div>
          <input type="hidden" name="id" value={card._id} />
          {fromLog ? <input type="hidden" name="logId" value={fromLog.logId} /> : null}
        </Form>
      )}
    </RouteModal>
  );
}
