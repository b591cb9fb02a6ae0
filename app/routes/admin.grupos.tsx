import { getFormProps } from "@conform-to/react";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useLocation } from "@remix-run/react";
import { DataTable } from "~/components/admin/list-parts";
import { RouteModal } from "~/components/admin/route-modal";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { FormAlert, InputField, resultFor, SubmitButton, useSchemaForm } from "~/components/forms";
import { describeSchedule, formatSchedule } from "~/doors/schedule";
import { AccessGroupFormSchema } from "~/schemas/access-group";
import { HolidaySchema } from "~/schemas/holiday";
import type { HolidayJson } from "~/services/holidays.server";
import { formatIsoDay } from "~/utils/dates";
import type { AccessGroupJson } from "~/services/access-groups.server";
import { requireAdmin } from "~/utils/auth.server";
import { pageMeta } from "~/utils/meta";
import { withSearchParams } from "~/utils/page-url";
import { groupsAction, loadGroupsPage } from "./admin.grupos.server";

export const meta = pageMeta("Grupos de acceso");

// Rendered once per distinct data (ADR 0008): loaders and guards still run on every request.

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return loadGroupsPage(request);
}

export async function action({ request }: ActionFunctionArgs) {
  await requireAdmin(request);
  return groupsAction(request);
}

const COLUMNS = ["Nombre", "Puertas y horarios", "Miembros", "Acciones"];

type Door = ReturnType<typeof useLoaderData<typeof loader>>["doors"][number];

export default function GroupsPage() {
  const { groups, doors, holidays, defaultGroupId, modal } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const { pathname, search } = useLocation();
  const link = (changes: Record<string, string | null>) => withSearchParams(pathname, search, changes);
  const closeTo = link({ modal: null, group: null });
  return (
    <>
      <h1>Grupos de acceso</h1>
      <p className="muted">
        Cada grupo abre sus puertas dentro de su horario (vacío: siempre). Las tarjetas activas de los miembros abren esas puertas; los
        permisos de cada tarjeta siguen sumándose.
      </p>
      <div className="admin-toolbar">
        <Link to={link({ modal: "new", group: null })} className="button" preventScrollReset>
          Nuevo grupo
        </Link>
      </div>
      <Form method="post" className="form field-row" preventScrollReset>
        <div className="field">
          <label htmlFor="default-group">Grupo por defecto para nuevos residentes</label>
          <select id="default-group" name="defaultAccessGroupId" defaultValue={defaultGroupId ?? ""} key={defaultGroupId ?? ""}>
            <option value="">Ninguno</option>
            {groups.map((group) => (
              <option key={group._id} value={group._id}>
                {group.name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <SubmitButton intent="set-default" label="Guardar" busyLabel="Guardando..." className="button button-secondary" />
        </div>
      </Form>
      <FormAlert title="Error" errors={resultFor(actionData, "set-default")?.error?.[""]} />
      {groups.length === 0 ? (
        <p>No hay grupos de acceso.</p>
      ) : (
        <DataTable caption="Grupos de acceso" columns={COLUMNS}>
          {groups.map((group) => (
            <tr key={group._id} data-testid={`group-${group.name}`}>
              <td data-label="Nombre">
                {group.name}
                {group._id === defaultGroupId ? <span className="badge badge-granted"> Por defecto</span> : null}
              </td>
              <td data-label="Puertas y horarios">
                {group.doors.length === 0 ? (
                  <span className="muted">Ninguna puerta</span>
                ) : (
                  <ul className="plain-list">
                    {group.doors.map((door) => (
                      <li key={door.doorId}>
                        {door.doorName}: {describeSchedule(door.schedule)}
                      </li>
                    ))}
                  </ul>
                )}
              </td>
              <td data-label="Miembros">{group.memberCount}</td>
              <td data-label="Acciones">
                <Link to={link({ modal: "edit", group: group._id })} className="button button-small button-secondary" preventScrollReset aria-label={`Editar ${group.name}`}>
                  Editar
                </Link>{" "}
                <Link to={link({ modal: "delete", group: group._id })} className="button button-small button-danger" preventScrollReset aria-label={`Eliminar ${group.name}`}>
                  Eliminar
                </Link>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <Holidays holidays={holidays} actionData={actionData} />
      {modal.name === "new" ? (
        <RouteModal title="Nuevo grupo de acceso" closeTo={closeTo}>
          <GroupForm doors={doors} group={null} intent="create-group" lastResult={resultFor(actionData, "create-group")} />
        </RouteModal>
      ) : null}
      {modal.name === "edit" && modal.group ? (
        <RouteModal title="Editar grupo de acceso" closeTo={closeTo}>
          <GroupForm doors={doors} group={modal.group} intent="update-group" lastResult={resultFor(actionData, "update-group")} />
        </RouteModal>
      ) : null}
      {modal.name === "delete" && modal.group ? (
        <RouteModal title="Eliminar grupo de acceso" closeTo={closeTo}>
          <FormAlert title="Error al eliminar" errors={resultFor(actionData, "delete-group")?.error?.[""]} />
          <p tabIndex={-1} data-autofocus>
            ¿Eliminar el grupo «{modal.group.name}»? Sus {modal.group.memberCount} miembros dejarán de abrir sus puertas por este grupo.
          </p>
          <Form method="post" className="modal-actions" preventScrollReset>
            <input type="hidden" name="id" value={modal.group._id} />
            <SubmitButton intent="delete-group" label="Eliminar" busyLabel="Eliminando..." className="button button-danger" />
          </Form>
        </RouteModal>
      ) : null}
      {(modal.name === "edit" || modal.name === "delete") && !modal.group ? (
        <RouteModal title="Grupo de acceso" closeTo={closeTo}>
          <p>Grupo de acceso no encontrado.</p>
        </RouteModal>
      ) : null}
    </>
  );
}

function GroupForm({
  doors,
  group,
  intent,
  lastResult,
}: {
  doors: Door[];
  group: AccessGroupJson | null;
  intent: string;
  lastResult: ReturnType<typeof resultFor>;
}) {
  const [form, fields] = useSchemaForm(AccessGroupFormSchema, {
    id: `group-${group?._id ?? "new"}`,
    lastResult,
    defaultValue: { name: group?.name ?? "" },
  });
  // What was typed comes back with a refused form; otherwise the group's own doors and timetables.
  const typed = lastResult?.initialValue as Record<string, unknown> | undefined;
  const typedDoors = typed ? ([] as unknown[]).concat(typed.door ?? []) : null;
  const inGroup = new Map(group?.doors.map((door) => [door.doorId, door.schedule]) ?? []);
  return (
    <Form method="post" {...getFormProps(form)} className="form" preventScrollReset>
      <FormAlert id={form.errorId} title="Error" errors={form.errors} />
      <InputField label="Nombre" meta={fields.name} data-autofocus />
      <fieldset className="field">
        <legend>Puertas y horarios</legend>
        <p className="muted">
          Marca las puertas del grupo. Horario: días L M X J V S D y horas, p. ej. «L-V 08:00-20:00; S 10:00-14:00». Vacío: siempre.
        </p>
        {doors.length === 0 ? <p className="muted">No hay puertas registradas.</p> : null}
        {doors.map((door) => {
          const checked = typedDoors ? typedDoors.includes(door.doorId) : inGroup.has(door.doorId);
          const schedule = typed ? String(typed[`schedule-${door.doorId}`] ?? "") : formatSchedule(inGroup.get(door.doorId));
          return (
            <div className="field-row" key={door.doorId}>
              <label className="checkbox">
                <input type="checkbox" name="door" value={door.doorId} defaultChecked={checked} /> {door.name}
              </label>
              <div className="field">
                <label htmlFor={`schedule-${door.doorId}`}>Horario de {door.name}</label>
                <input id={`schedule-${door.doorId}`} name={`schedule-${door.doorId}`} defaultValue={schedule} placeholder="Siempre" />
              </div>
            </div>
          );
        })}
      </fieldset>
      {group ? <input type="hidden" name="id" value={group._id} /> : null}
      <div className="modal-actions">
        <SubmitButton intent={intent} label={group ? "Guardar" : "Crear grupo"} busyLabel="Guardando..." />
      </div>
    </Form>
  );
}

/** The building's holidays: door timetables do not unlock on them unless the door says so. */
function Holidays({ holidays, actionData }: { holidays: HolidayJson[]; actionData: ReturnType<typeof useActionData<typeof action>> }) {
  const [form, fields] = useSchemaForm(HolidaySchema, { id: "holiday-new", lastResult: resultFor(actionData, "create-holiday") });
  return (
    <section aria-labelledby="holidays-title" style={{ marginTop: "2rem" }}>
      <h2 id="holidays-title">Festivos</h2>
      <p className="muted">En los días festivos, las puertas con horario de apertura no se abren solas, salvo las marcadas «Abrir también en festivos».</p>
      <Form method="post" {...getFormProps(form)} className="form field-row" preventScrollReset>
        <FormAlert id={form.errorId} title="Error" errors={form.errors} />
        <InputField label="Fecha" meta={fields.day} type="date" />
        <InputField label="Nombre del festivo" meta={fields.name} />
        <div>
          <SubmitButton intent="create-holiday" label="Añadir festivo" busyLabel="Guardando..." className="button button-secondary" />
        </div>
      </Form>
      <FormAlert title="Error al eliminar" errors={resultFor(actionData, "delete-holiday")?.error?.[""]} />
      {holidays.length === 0 ? (
        <p>No hay festivos.</p>
      ) : (
        <DataTable caption="Festivos" columns={["Fecha", "Nombre", "Acciones"]}>
          {holidays.map((holiday) => (
            <tr key={holiday._id} data-testid={`holiday-${holiday.day}`}>
              <td data-label="Fecha">{formatIsoDay(holiday.day)}</td>
              <td data-label="Nombre">{holiday.name}</td>
              <td data-label="Acciones">
                <Form method="post" preventScrollReset>
                  <input type="hidden" name="id" value={holiday._id} />
                  <button
                    type="submit"
                    name="intent"
                    value="delete-holiday"
                    className="button button-small button-danger"
                    aria-label={`Eliminar festivo ${formatIsoDay(holiday.day)}`}
                  >
                    Eliminar
                  </button>
                </Form>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
