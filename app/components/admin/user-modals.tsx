// The users screen's modals (URL state: ?modal=…&user=…&card=…), each a plain
// form that works without JavaScript; with it, the forms validate in the
// browser and the assign form reveals its fields once a card is chosen.
import type { WeeklySchedule } from "~/db/schema-enums";
import { describeSchedule } from "~/doors/schedule";
import { getFormProps, getSelectProps, type SubmissionResult } from "@conform-to/react";
import { Form, Link, useNavigation } from "@remix-run/react";
import { useRef, useState, type FormEvent } from "react";
import { ErrorList, FormAlert, InputField, SelectField, SubmitButton, TextareaField, useSchemaForm } from "~/components/forms";
import { useToast } from "~/components/toaster";
import { CARD_TYPES, USER_ROLES, USER_STATUSES } from "~/db/schema-enums";
import { CARD_TYPE_LABELS } from "~/schemas/card";
import {
  createCardAssignmentSchema,
  createUserCardUpdateSchema,
  USER_ROLE_LABELS,
  USER_STATUS_LABELS,
  UserCreateSchema,
  UserUpdateSchema,
  validationNotice,
} from "~/schemas/user";
import type { CardJson } from "~/services/cards.server";
import type { UserDetail, UserJson } from "~/services/users.server";
import { madridDayOf } from "~/utils/dates";
import { makeToast } from "~/utils/toast";
import { useHydrated } from "~/utils/use-hydrated";
import { CardAlias, CardExpiryBadge, CardNumber, CardStatusBadge } from "./card-badges";
import { RouteModal } from "./route-modal";

type LastResult = SubmissionResult<string[]> | undefined;

/** A card in the 'Asignar Tarjeta' select. */
export type CardOption = { cardNumber: string; label: string; holder: { id: string; name: string } | null };

/** SPEC: unassigned cards, pending ones (with whoever they are pending for), and those of other users. */
export type CardOptionGroups = { unassigned: CardOption[]; pending: CardOption[]; assigned: CardOption[] };
type Errors = Record<string, string[] | null> | null;

/** "Marta García", or the username when there is no name. */
export function userName(user: Pick<UserJson, "username" | "firstName" | "lastName">) {
  return [user.firstName, user.lastName].filter(Boolean).join(" ").trim() || user.username;
}

export function UserStatusBadge({ status }: { status: UserJson["status"] }) {
  return <span className={`badge badge-${status}`}>{USER_STATUS_LABELS[status]}</span>;
}

/**
 * conform's onSubmit, plus the toast the server would give when the browser
 * refuses the form first (SPEC's 'Campos requeridos' warning or the failure).
 */
function useValidationToast(failureTitle: string) {
  const showToast = useToast();
  const errors = useRef<Errors>(null);
  return {
    remember<S extends { status?: string; error?: Errors }>(submission: S): S {
      errors.current = submission.status === "error" ? (submission.error ?? null) : null;
      return submission;
    },
    wrap(onSubmit: (event: FormEvent<HTMLFormElement>) => void) {
      return (event: FormEvent<HTMLFormElement>) => {
        onSubmit(event);
        if (event.defaultPrevented && errors.current) {
          const notice = validationNotice(errors.current, failureTitle);
          showToast(makeToast(notice.type, notice.title, notice.description));
        }
      };
    },
  };
}

/**
 * A small action button ("Editar", named "Editar tarjeta 04A1…" for assistive
 * tech): a link to its modal, or, with `disabledReason`, a disabled button
 * that says why.
 */
export function ActionLink({ to, label, target, tone = "secondary", disabledReason }: {
  to: string;
  label: string;
  target: string;
  tone?: "primary" | "secondary" | "danger";
  disabledReason?: string;
}) {
  const className = `button ${tone === "primary" ? "" : `button-${tone} `}button-small`;
  if (disabledReason) {
    return (
      <button type="button" className={className} disabled title={disabledReason} aria-label={`${label} ${target}`}>
        {label}
      </button>
    );
  }
  return (
    <Link to={to} className={className} aria-label={`${label} ${target}`} preventScrollReset>
      {label}
    </Link>
  );
}

function CancelLink({ to }: { to: string }) {
  return (
    <Link to={to} className="button button-secondary" preventScrollReset>
      Cancelar
    </Link>
  );
}

export function UserNotFoundModal({ closeTo }: { closeTo: string }) {
  return (
    <RouteModal title="Usuario no encontrado" closeTo={closeTo}>
      <p>El usuario no existe o ha sido eliminado.</p>
    </RouteModal>
  );
}


/** 'Crear Usuario' (user null) and 'Editar'. */
/** The access groups a form offers, and the one a new resident joins unless told otherwise. */
export type GroupChoices = { groups: { id: string; name: string }[]; defaultGroupId: string | null };

export function UserFormModal({ user, closeTo, lastResult, groupChoices }: { user: UserJson | null; closeTo: string; lastResult: LastResult; groupChoices: GroupChoices }) {
  const hydrated = useHydrated();
  const failure = user ? "Error al actualizar" : "Error al crear";
  const validation = useValidationToast(failure);
  const [form, fields] = useSchemaForm(user ? UserUpdateSchema : UserCreateSchema, {
    id: `user-form-${user?._id ?? "new"}`,
    lastResult,
    defaultValue: user
      ? {
          username: user.username,
          email: user.email,
          firstName: user.firstName ?? "",
          lastName: user.lastName ?? "",
          department: user.department ?? "",
          phone: user.phone ?? "",
          role: user.role,
          status: user.status,
          notes: user.notes ?? "",
          unitNumber: user.unitNumber ?? "",
        }
      : { role: "user", status: "active" },
    onValidated: validation.remember,
  });
  const [role, setRole] = useState(String(fields.role.initialValue ?? "user"));
  const formProps = getFormProps(form);
  return (
    <RouteModal title={user ? "Editar Usuario" : "Crear Usuario"} closeTo={closeTo} closeLink={false}>
      <Form method="post" {...formProps} onSubmit={validation.wrap(formProps.onSubmit)} className="form" preventScrollReset>
        <FormAlert id={form.errorId} title={failure} errors={form.errors} />
        {user ? <input type="hidden" name="id" value={user._id} /> : null}
        <div className="field-row">
          <InputField label="Usuario" meta={fields.username} autoComplete="off" data-autofocus />
          <InputField label="Email" meta={fields.email} type="email" autoComplete="off" />
        </div>
        <InputField
          label={user ? "Contraseña (déjala vacía para no cambiarla)" : "Contraseña"}
          meta={fields.password}
          type="password"
          autoComplete="new-password"
          hint="Al menos 10 caracteres; las contraseñas más comunes no se aceptan."
        />
        <div className="field-row">
          <InputField label="Nombre" meta={fields.firstName} />
          <InputField label="Apellidos" meta={fields.lastName} />
        </div>
        <div className="field-row">
          <InputField label="Departamento" meta={fields.department} />
          <InputField label="Teléfono" meta={fields.phone} type="tel" />
        </div>
        <div className="field-row">
          <SelectField
            label="Rol"
            meta={fields.role}
            options={USER_ROLES.map((value) => ({ value, label: USER_ROLE_LABELS[value] }))}
            onChange={(event) => setRole(event.currentTarget.value)}
          />
          <SelectField label="Estado" meta={fields.status} options={USER_STATUSES.map((value) => ({ value, label: USER_STATUS_LABELS[value] }))} />
        </div>
        {/* Residents only: with JavaScript it follows the role; without, the label says so. */}
        {!hydrated || role === "user" ? (
          <InputField label={hydrated ? "Número de unidad" : "Número de unidad (solo residentes)"} meta={fields.unitNumber} />
        ) : null}
        <TextareaField label="Notas" meta={fields.notes} rows={3} />
        <AccessGroupChoices
          choices={groupChoices}
          checked={
            lastResult?.initialValue
              ? ([] as unknown[]).concat(lastResult.initialValue.accessGroups ?? [])
              : user
                ? user.accessGroups
                : groupChoices.defaultGroupId
                  ? [groupChoices.defaultGroupId]
                  : []
          }
        />
        <div className="modal-actions">
          <CancelLink to={closeTo} />
          <SubmitButton intent={user ? "update-user" : "create-user"} label={user ? "Actualizar Usuario" : "Crear Usuario"} busyLabel="Guardando..." />
        </div>
      </Form>
    </RouteModal>
  );
}

/** The user's access groups: their cards open these groups' doors within their timetables. */
function AccessGroupChoices({ choices, checked }: { choices: GroupChoices; checked: unknown[] }) {
  if (choices.groups.length === 0) return null;
  return (
    <fieldset className="field">
      <legend>Grupos de acceso</legend>
      {choices.groups.map((group) => (
        <label key={group.id} className="checkbox">
          <input type="checkbox" name="accessGroups" value={group.id} defaultChecked={checked.includes(group.id)} /> {group.name}
        </label>
      ))}
    </fieldset>
  );
}

/** What a card given to the user will open, from their access groups. */
export type GroupDoors = { doorId: string; doorName: string; groups: { name: string; schedule: WeeklySchedule }[] }[];

function DoorsTheCardWillOpen({ doors, choices }: { doors: GroupDoors; choices: GroupChoices }) {
  if (doors.length > 0) {
    return (
      <div className="alert alert-info" role="status" data-testid="card-doors">
        Con sus grupos de acceso, la tarjeta abrirá:
        <ul>
          {doors.map((door) => (
            <li key={door.doorId}>
              {door.doorName} ({door.groups.map((group) => `${group.name}: ${describeSchedule(group.schedule)}`).join("; ")})
            </li>
          ))}
        </ul>
      </div>
    );
  }
  return (
    <div className="alert alert-warning" role="status" data-testid="card-doors">
      <p>El usuario no está en ningún grupo de acceso con puertas: esta tarjeta no abrirá ninguna puerta (salvo permisos propios de la tarjeta).</p>
      {choices.groups.length > 0 ? (
        <div className="field">
          <label htmlFor="join-group">Añadir al usuario al grupo</label>
          <select id="join-group" name="joinGroup" defaultValue="">
            <option value="">No añadir</option>
            {choices.groups.map((group) => (
              <option key={group.id} value={group.id}>
                {group.name}
              </option>
            ))}
          </select>
        </div>
      ) : null}
    </div>
  );
}

/** 'Ver': the user's details and their cards. */
export function UserDetailModal({ detail, now, closeTo, linkTo }: {
  detail: UserDetail;
  now: Date;
  closeTo: string;
  /** The page URL with this user's modal (and a card of theirs) instead. */
  linkTo: (modal: "assign" | "edit-card" | "unassign", cardId?: string) => string;
}) {
  const { user, cards } = detail;
  const name = [user.firstName, user.lastName].filter(Boolean).join(" ");
  return (
    <RouteModal title={`Detalles de ${user.username}`} closeTo={closeTo}>
      <dl className="details">
        <dt>Nombre</dt>
        <dd>{name || "No especificado"}</dd>
        <dt>Usuario</dt>
        <dd>{user.username}</dd>
        <dt>Email</dt>
        <dd>{user.email}</dd>
        <dt>Departamento</dt>
        <dd>{user.department || "No especificado"}</dd>
        <dt>Teléfono</dt>
        <dd>{user.phone || "No especificado"}</dd>
        <dt>Rol</dt>
        <dd>{USER_ROLE_LABELS[user.role]}</dd>
        <dt>Estado</dt>
        <dd>
          <UserStatusBadge status={user.status} />
        </dd>
        {user.role === "user" ? (
          <>
            <dt>Unidad</dt>
            <dd>{user.unitNumber || "No especificado"}</dd>
          </>
        ) : null}
        {user.notes ? (
          <>
            <dt>Notas</dt>
            <dd>{user.notes}</dd>
          </>
        ) : null}
      </dl>

      <section aria-labelledby="user-cards-title" className="card-section">
        <div className="section-header">
          <h3 id="user-cards-title">Tarjetas Asignadas</h3>
          <Link to={linkTo("assign")} className="button button-small" preventScrollReset>
            Asignar Tarjeta
          </Link>
        </div>
        {cards.length === 0 ? (
          <p className="muted">No hay tarjetas asignadas a este usuario.</p>
        ) : (
          <ul className="user-cards">
            {cards.map((card) => (
              <UserCardItem key={card._id} card={card} now={now} linkTo={linkTo} />
            ))}
          </ul>
        )}
      </section>
    </RouteModal>
  );
}

function UserCardItem({ card, now, linkTo }: { card: CardJson; now: Date; linkTo: (modal: "edit-card" | "unassign", cardId: string) => string }) {
  return (
    <li data-testid="user-card" data-card-number={card.cardNumber}>
      <div className="user-card-line">
        <CardNumber cardNumber={card.cardNumber} isAnonymous={card.isAnonymous} />
        <span>
          <CardAlias alias={card.alias} />
        </span>
        <span className="muted">{CARD_TYPE_LABELS[card.type]}</span>
      </div>
      <div className="user-card-line">
        <CardStatusBadge status={card.status} />
        <CardExpiryBadge expiresAt={card.expiresAt} now={now} />
        <span className="actions">
          <ActionLink to={linkTo("edit-card", card._id)} label="Editar" target={`tarjeta ${card.cardNumber}`} />
          <ActionLink to={linkTo("unassign", card._id)} label="Eliminar" target={`tarjeta ${card.cardNumber}`} tone="danger" />
        </span>
      </div>
    </li>
  );
}

/** Inactivar / Activar, each behind this confirmation. */
export function UserStatusModal({ user, change, closeTo, lastResult }: {
  user: UserJson;
  change: "inactivate" | "activate";
  closeTo: string;
  lastResult: LastResult;
}) {
  const inactivating = change === "inactivate";
  const title = inactivating ? "Inactivar usuario" : "Activar usuario";
  return (
    <RouteModal title={title} closeTo={closeTo} closeLink={inactivating && user.role === "admin"}>
      {inactivating && user.role === "admin" ? (
        <div className="alert alert-error" role="alert">
          No se puede inactivar a un administrador.
        </div>
      ) : (
        <>
          <FormAlert title={inactivating ? "Error al inactivar" : "Error al activar"} errors={lastResult?.error?.[""]} />
          <p tabIndex={-1} data-autofocus>
            {inactivating ? "¿Estás seguro de que quieres inactivar a " : "¿Quieres activar a "}
            <strong>{userName(user)}</strong> (@{user.username})?
          </p>
          <p>
            {inactivating
              ? "Sus tarjetas dejarán de abrir las puertas, también las que estén sin conexión, y sus sesiones de la API se cerrarán."
              : "Sus tarjetas activas volverán a abrir las puertas que tengan permitidas."}
          </p>
          <Form method="post" className="modal-actions" preventScrollReset>
            <input type="hidden" name="id" value={user._id} />
            <CancelLink to={closeTo} />
            <SubmitButton
              intent={inactivating ? "inactivate-user" : "activate-user"}
              label={inactivating ? "Inactivar" : "Activar"}
              busyLabel={inactivating ? "Inactivando..." : "Activando..."}
              className={inactivating ? "button button-danger" : "button"}
            />
          </Form>
        </>
      )}
    </RouteModal>
  );
}

export type UserDeletion = { cards: number; bookings: number; notifications: number };

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function DeleteUserModal({ user, deletion, closeTo, lastResult }: {
  user: UserJson;
  deletion: UserDeletion;
  closeTo: string;
  lastResult: LastResult;
}) {
  return (
    <RouteModal title="Eliminar usuario" closeTo={closeTo} closeLink={user.role === "admin"}>
      {user.role === "admin" ? (
        <div className="alert alert-error" role="alert">
          No se puede eliminar a un administrador.
        </div>
      ) : (
        <>
          <FormAlert title="Error al eliminar" errors={lastResult?.error?.[""]} />
          <p tabIndex={-1} data-autofocus>
            ¿Estás seguro de que quieres eliminar a <strong>{userName(user)}</strong> (@{user.username})? Esta acción no se puede deshacer.
          </p>
          <ul data-testid="user-deletion">
            <li>
              {deletion.cards === 0
                ? "No tiene tarjetas asignadas."
                : `${count(deletion.cards, "tarjeta quedará", "tarjetas quedarán")} sin asignar e inactivas: dejarán de abrir las puertas.`}
            </li>
            <li>
              Se eliminarán {count(deletion.bookings, "reserva de instalaciones", "reservas de instalaciones")} y{" "}
              {count(deletion.notifications, "notificación", "notificaciones")}, y se cerrarán sus sesiones.
            </li>
            <li>El registro de accesos y las incidencias conservan su nombre de usuario.</li>
          </ul>
          <Form method="post" className="modal-actions" preventScrollReset>
            <input type="hidden" name="id" value={user._id} />
            <CancelLink to={closeTo} />
            <SubmitButton intent="delete-user" label="Eliminar" busyLabel="Eliminando..." className="button button-danger" />
          </Form>
        </>
      )}
    </RouteModal>
  );
}

/** Card fields shared by the assign and edit forms. */
function CardFields({ fields, today }: { fields: ReturnType<typeof useCardForm>[1]; today: string }) {
  return (
    <>
      <InputField label="Alias (opcional)" meta={fields.alias} />
      <TextareaField label="Descripción (opcional)" meta={fields.description} rows={2} />
      <div className="field-row">
        <SelectField label="Tipo" meta={fields.cardType} options={CARD_TYPES.map((value) => ({ value, label: CARD_TYPE_LABELS[value] }))} />
        <InputField label="Fecha de expiración (opcional)" meta={fields.expiresAt} type="date" min={today} hint="Vacía: sin fecha de expiración." />
      </div>
    </>
  );
}


function useCardForm({ id, lastResult, defaultValue, schema, failureTitle }: {
  id: string;
  lastResult: LastResult;
  defaultValue: Record<string, string>;
  schema: ReturnType<typeof createCardAssignmentSchema> | ReturnType<typeof createUserCardUpdateSchema>;
  failureTitle: string;
}) {
  const validation = useValidationToast(failureTitle);
  const [form, fields] = useSchemaForm(schema, {
    id,
    lastResult,
    defaultValue,
    onValidated: validation.remember,
  });
  return [form, fields, validation] as const;
}

export function AssignCardModal({ user, groups, today, closeTo, lastResult, reassign, groupDoors, groupChoices }: {
  user: UserJson;
  groups: CardOptionGroups;
  groupDoors: GroupDoors;
  groupChoices: GroupChoices;
  today: string;
  closeTo: string;
  lastResult: LastResult;
  /** The server asked before taking the chosen card from its holder (without JavaScript). */
  reassign?: { holderId: string; holderName: string };
}) {
  const hydrated = useHydrated();
  const navigation = useNavigation();
  const [form, fields, validation] = useCardForm({
    id: `assign-card-${user._id}`,
    lastResult,
    defaultValue: { cardType: "primary" },
    schema: createCardAssignmentSchema({ today }),
    failureTitle: "Error al asignar",
  });
  const submitted = String(fields.cardNumber.initialValue ?? "");
  const [selected, setSelected] = useState(submitted);
  const options = [...groups.unassigned, ...groups.pending, ...groups.assigned];
  const chosen = options.find((option) => option.cardNumber === selected);
  // Whose card this is: as the server said (it asked), or as the chosen option says (JavaScript).
  const holder =
    reassign && selected === submitted ? { id: reassign.holderId, name: reassign.holderName } : hydrated && chosen?.holder ? chosen.holder : null;
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "assign-card";
  const formProps = getFormProps(form);
  return (
    <RouteModal title="Asignar Tarjeta" closeTo={closeTo} closeLink={false}>
      <p>
        Usuario: <strong>{userName(user)}</strong> (@{user.username})
      </p>
      {options.length === 0 ? (
        <>
          <p>No hay tarjetas disponibles para asignar.</p>
          <p className="muted">Las tarjetas aparecen aquí cuando se usan por primera vez en una puerta o cuando se desasignan de otro usuario.</p>
          <div className="modal-actions">
            <CancelLink to={closeTo} />
          </div>
        </>
      ) : (
        <Form method="post" {...formProps} onSubmit={validation.wrap(formProps.onSubmit)} className="form" preventScrollReset>
          <FormAlert id={form.errorId} title="Error al asignar" errors={form.errors} />
          <input type="hidden" name="id" value={user._id} />
          <div className="field">
            <label htmlFor={fields.cardNumber.id}>Tarjeta</label>
            <select {...getSelectProps(fields.cardNumber)} key={fields.cardNumber.key} data-autofocus onChange={(event) => setSelected(event.currentTarget.value)}>
              <option value="">Selecciona una tarjeta</option>
              <CardOptionGroup label="Sin asignar" options={groups.unassigned} />
              <CardOptionGroup label="Pendientes de aprobación" options={groups.pending} />
              <CardOptionGroup label="Asignadas a otro usuario" options={groups.assigned} />
            </select>
            <ErrorList id={fields.cardNumber.errorId} errors={fields.cardNumber.errors} />
          </div>
          {holder ? (
            <>
              <div className="alert alert-warning" role="alert" data-testid="reassign-warning">
                Esta tarjeta está asignada a <strong>{holder.name}</strong>. Si la asignas, se le quitará a ese usuario.
              </div>
              <input type="hidden" name="reassignFrom" value={holder.id} />
            </>
          ) : null}
          {/* With JavaScript the details appear once a card is chosen; without, they are always there. */}
          {!hydrated || selected ? <CardFields fields={fields} today={today} /> : null}
          <DoorsTheCardWillOpen doors={groupDoors} choices={groupChoices} />
          <div className="modal-actions">
            <CancelLink to={closeTo} />
            <button type="submit" name="intent" value="assign-card" className="button" disabled={(hydrated && !selected) || busy}>
              {busy ? "Asignando..." : "Asignar Tarjeta"}
            </button>
          </div>
        </Form>
      )}
    </RouteModal>
  );
}

function CardOptionGroup({ label, options }: { label: string; options: CardOption[] }) {
  if (options.length === 0) return null;
  return (
    <optgroup label={label}>
      {options.map((option) => (
        <option key={option.cardNumber} value={option.cardNumber}>
          {option.label}
        </option>
      ))}
    </optgroup>
  );
}

export function EditUserCardModal({ user, card, today, closeTo, lastResult }: {
  user: UserJson;
  card: CardJson;
  today: string;
  closeTo: string;
  lastResult: LastResult;
}) {
  const [form, fields, validation] = useCardForm({
    id: `edit-card-${card._id}`,
    lastResult,
    defaultValue: {
      alias: card.alias ?? "",
      description: card.description ?? "",
      cardType: card.type,
      expiresAt: card.expiresAt ? madridDayOf(card.expiresAt) : "",
    },
    schema: createUserCardUpdateSchema({ today }),
    failureTitle: "Error al actualizar",
  });
  const formProps = getFormProps(form);
  return (
    <RouteModal title={`Editar tarjeta ${card.cardNumber}`} closeTo={closeTo} closeLink={false}>
      <Form method="post" {...formProps} onSubmit={validation.wrap(formProps.onSubmit)} className="form" preventScrollReset>
        <FormAlert id={form.errorId} title="Error al actualizar" errors={form.errors} />
        <input type="hidden" name="id" value={user._id} />
        <input type="hidden" name="cardId" value={card._id} />
        <div className="field">
          <label htmlFor="edit-card-number">Número de tarjeta</label>
          <input id="edit-card-number" value={card.cardNumber} readOnly />
        </div>
        <CardFields fields={fields} today={today} />
        <div className="modal-actions">
          <CancelLink to={closeTo} />
          <SubmitButton intent="update-card" label="Actualizar Tarjeta" busyLabel="Actualizando..." />
        </div>
      </Form>
    </RouteModal>
  );
}

export function UnassignCardModal({ user, card, closeTo, lastResult }: { user: UserJson; card: CardJson; closeTo: string; lastResult: LastResult }) {
  return (
    <RouteModal title="Desasignar tarjeta" closeTo={closeTo} closeLink={false}>
      <FormAlert title="Error al eliminar" errors={lastResult?.error?.[""]} />
      <p tabIndex={-1} data-autofocus>
        ¿Quieres quitar la tarjeta <CardNumber cardNumber={card.cardNumber} isAnonymous={card.isAnonymous} /> (<CardAlias alias={card.alias} />) a{" "}
        <strong>{userName(user)}</strong>?
      </p>
      <p>Quedará sin asignar e inactiva: dejará de abrir las puertas, también las que estén sin conexión, hasta que se asigne de nuevo.</p>
      <Form method="post" className="modal-actions" preventScrollReset>
        <input type="hidden" name="id" value={user._id} />
        <input type="hidden" name="cardId" value={card._id} />
        <CancelLink to={closeTo} />
        <SubmitButton intent="unassign-card" label="Desasignar" busyLabel="Desasignando..." className="button button-danger" />
      </Form>
    </RouteModal>
  );
}
