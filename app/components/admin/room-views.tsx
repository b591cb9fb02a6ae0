// /admin/habitaciones: a room's table row and the screen's modals (URL state:
// ?modal=new | edit | delete & room=…), each a plain form that works without
// JavaScript.
import { getFormProps, type SubmissionResult } from "@conform-to/react";
import { Form, Link } from "@remix-run/react";
import { FormAlert, InputField, labelledOptions, SelectField, SubmitButton, TextareaField, useSchemaForm } from "~/components/forms";
import { ROOM_STATUSES, ROOM_TYPES } from "~/db/schema-enums";
import { ROOM_TYPE_LABELS } from "~/schemas/reservation";
import { ROOM_STATUS_LABELS, RoomSchema } from "~/schemas/room";
import type { RoomJson } from "~/services/rooms.server";
import { doorOptionLabel, type DoorOption } from "./incident-views";
import { RouteModal } from "./route-modal";

export function RoomStatusBadge({ status }: { status: RoomJson["status"] }) {
  return <span className={`badge badge-room-${status}`}>{ROOM_STATUS_LABELS[status]}</span>;
}

export function RoomRow({ room, doorName, linkTo }: { room: RoomJson; doorName: string | null; linkTo: (modal: "edit" | "delete") => string }) {
  return (
    <tr data-testid="room-row" data-room={room.name}>
      <td data-label="Habitación">
        <strong>{room.name}</strong>
      </td>
      <td data-label="Planta">{room.floor}</td>
      <td data-label="Tipo">{ROOM_TYPE_LABELS[room.roomType]}</td>
      <td data-label="Puerta">{doorName ?? <span className="muted">Sin puerta</span>}</td>
      <td data-label="Estado">
        <RoomStatusBadge status={room.status} />
      </td>
      <td data-label="Notas">{room.notes ?? <span className="muted">—</span>}</td>
      <td data-label="Acciones">
        <div className="actions">
          <Link to={linkTo("edit")} className="button button-secondary button-small" aria-label={`Editar habitación ${room.name}`} preventScrollReset>
            Editar
          </Link>
          <Link to={linkTo("delete")} className="button button-danger button-small" aria-label={`Eliminar habitación ${room.name}`} preventScrollReset>
            Eliminar
          </Link>
        </div>
      </td>
    </tr>
  );
}

/** Create (no `room`) or edit a room. */
export function RoomFormModal({ room, doors, closeTo, lastResult }: { room?: RoomJson; doors: DoorOption[]; closeTo: string; lastResult?: SubmissionResult<string[]> }) {
  const [form, fields] = useSchemaForm(RoomSchema, {
    id: room ? `room-edit-${room._id}` : "room-create",
    lastResult,
    defaultValue: room
      ? { name: room.name, floor: String(room.floor), roomType: room.roomType, doorId: room.doorId ?? "", status: room.status, notes: room.notes ?? "" }
      : { status: "available" },
  });
  return (
    <RouteModal title={room ? `Editar habitación ${room.name}` : "Nueva habitación"} closeTo={closeTo}>
      <Form method="post" {...getFormProps(form)} className="form" preventScrollReset>
        <FormAlert id={form.errorId} title="Error" errors={form.errors} />
        {room ? <input type="hidden" name="id" value={room._id} /> : null}
        <div className="field-row">
          <InputField label="Nombre o número" meta={fields.name} data-autofocus />
          <InputField label="Planta" meta={fields.floor} type="number" step={1} />
        </div>
        <div className="field-row">
          <SelectField label="Tipo" meta={fields.roomType} placeholder="Selecciona un tipo" options={labelledOptions(ROOM_TYPES, ROOM_TYPE_LABELS)} />
          <SelectField label="Estado" meta={fields.status} options={labelledOptions(ROOM_STATUSES, ROOM_STATUS_LABELS)} />
        </div>
        <SelectField
          label="Puerta (opcional)"
          meta={fields.doorId}
          placeholder="Sin puerta propia"
          options={doors.map((door) => ({ value: door.doorId, label: doorOptionLabel(door) }))}
        />
        <TextareaField label="Notas (opcional)" meta={fields.notes} rows={2} />
        <div>
          <SubmitButton intent={room ? "update-room" : "create-room"} label={room ? "Guardar Cambios" : "Crear habitación"} busyLabel="Guardando..." />
        </div>
      </Form>
    </RouteModal>
  );
}

export function DeleteRoomModal({ room, closeTo, lastResult }: { room: RoomJson; closeTo: string; lastResult?: SubmissionResult<string[]> }) {
  return (
    <RouteModal title="Eliminar habitación" closeTo={closeTo}>
      <FormAlert title="Error" errors={lastResult?.error?.[""]} />
      <p tabIndex={-1} data-autofocus>
        ¿Seguro que quieres eliminar la habitación <strong>{room.name}</strong>?
      </p>
      <p>Sus estancias pasadas conservan sus fechas, sin habitación. Esta acción no se puede deshacer.</p>
      <Form method="post" className="modal-actions" preventScrollReset>
        <input type="hidden" name="id" value={room._id} />
        <SubmitButton intent="delete-room" label="Eliminar" busyLabel="Eliminando..." className="button button-danger" />
      </Form>
    </RouteModal>
  );
}

export function RoomNotFoundModal({ closeTo }: { closeTo: string }) {
  return (
    <RouteModal title="Habitación no encontrada" closeTo={closeTo}>
      <p>La habitación no existe o ha sido eliminada.</p>
    </RouteModal>
  );
}
