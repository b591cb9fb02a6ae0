import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Link, useActionData, useLoaderData, useLocation } from "@remix-run/react";
import { DataTable } from "~/components/admin/list-parts";
import { DeleteRoomModal, RoomFormModal, RoomNotFoundModal, RoomRow } from "~/components/admin/room-views";
import { StatTiles } from "~/components/admin/stat-tiles";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { resultFor } from "~/components/forms";
import { ROOM_TYPES } from "~/db/schema-enums";
import { ROOM_TYPE_LABELS } from "~/schemas/reservation";
import { requireAdmin } from "~/utils/auth.server";
import type { FormActionData } from "~/utils/form-reply.server";
import { pageMeta } from "~/utils/meta";
import { withSearchParams } from "~/utils/page-url";
import { loadRoomsPage, roomsAction } from "./admin.habitaciones.server";

export const meta = pageMeta("Habitaciones");

// Rendered once per distinct data (ADR 0008): loaders and guards still run on every request.

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return loadRoomsPage(request);
}

export async function action({ request }: ActionFunctionArgs) {
  await requireAdmin(request);
  return roomsAction(request);
}

const COLUMNS = ["Habitación", "Planta", "Tipo", "Puerta", "Estado", "Notas", "Acciones"];

export default function RoomsPage() {
  const { rooms, doors, modal } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>() as FormActionData | undefined;
  const { search } = useLocation();
  const here = (changes: Record<string, string | null>) => withSearchParams("/admin/habitaciones", search, changes);
  const listUrl = here({ modal: null, room: null });
  const doorNames = new Map(doors.map((door) => [door.doorId, door.name]));
  const inService = (type: (typeof ROOM_TYPES)[number]) => rooms.filter((room) => room.roomType === type && room.status === "available").length;
  return (
    <>
      <h1>Habitaciones</h1>
      <StatTiles
        label="Habitaciones en servicio por tipo"
        tiles={[
          ...ROOM_TYPES.map((type) => ({ label: ROOM_TYPE_LABELS[type], value: inService(type) })),
          { label: "Fuera de servicio", value: rooms.filter((room) => room.status !== "available").length, tone: "warning" as const },
        ]}
      />
      <div className="admin-toolbar">
        <Link to={here({ modal: "new", room: null })} className="button" preventScrollReset>
          Nueva habitación
        </Link>
        <Link to="/admin/ocupacion" className="button button-secondary">
          Ver ocupación
        </Link>
      </div>
      {rooms.length === 0 ? (
        <p>No hay habitaciones. Crea la primera para poder aceptar reservas.</p>
      ) : (
        <DataTable caption="Habitaciones" columns={COLUMNS}>
          {rooms.map((room) => (
            <RoomRow key={room._id} room={room} doorName={room.doorId ? (doorNames.get(room.doorId) ?? null) : null} linkTo={(name) => here({ modal: name, room: room._id })} />
          ))}
        </DataTable>
      )}

      {modal.name === "new" ? <RoomFormModal doors={doors} closeTo={listUrl} lastResult={resultFor(actionData, "create-room")} /> : null}
      {modal.name && modal.name !== "new" && !modal.room ? <RoomNotFoundModal closeTo={listUrl} /> : null}
      {modal.room && modal.name === "edit" ? <RoomFormModal room={modal.room} doors={doors} closeTo={listUrl} lastResult={resultFor(actionData, "update-room")} /> : null}
      {modal.room && modal.name === "delete" ? <DeleteRoomModal room={modal.room} closeTo={listUrl} lastResult={resultFor(actionData, "delete-room")} /> : null}
    </>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
