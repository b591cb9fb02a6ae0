// /admin/habitaciones: the rooms with their counts per type, the open modal's
// room, and the forms' intents (create, edit, delete), through
// app/services/rooms.server.ts. Every answer keeps the page's query.
import { parseWithZod } from "@conform-to/zod/v4";
import { RoomSchema } from "~/schemas/room";
import { listDoorOptions } from "~/services/doors.server";
import * as rooms from "~/services/rooms.server";
import { readForm, refusedForm } from "~/utils/form-reply.server";
import { modalOf, pageUrl } from "~/utils/page-url";
import { throwRefusal } from "~/utils/refusal.server";
import { successToast } from "~/utils/toast";
import { redirectWithToast } from "~/utils/toast.server";

export const ROOM_MODALS = ["new", "edit", "delete"] as const;

export async function loadRoomsPage(request: Request) {
  const url = new URL(request.url);
  const [list, doors] = await Promise.all([rooms.listRooms(), listDoorOptions()]);
  const modalName = modalOf(url.searchParams, ROOM_MODALS);
  const roomId = url.searchParams.get("room");
  const selected = modalName && modalName !== "new" && roomId ? list.find((room) => room._id === roomId) ?? null : null;
  return { rooms: list, doors, modal: { name: modalName, room: selected } };
}

export async function roomsAction(request: Request) {
  const formData = await readForm(request);
  const intent = String(formData.get("intent") ?? "");
  const id = String(formData.get("id") ?? "");
  const listUrl = pageUrl(request, { modal: null, room: null });

  switch (intent) {
    case "create-room": {
      const submission = parseWithZod(formData, { schema: RoomSchema });
      if (submission.status !== "success") return refusedForm(submission, { intent });
      const created = await rooms.createRoom(submission.value);
      if (!created.ok) return refusedForm(created, { intent, submission, toastTitle: "No se pudo crear la habitación" });
      return redirectWithToast(listUrl, successToast("Habitación creada", created.room.name));
    }
    case "update-room": {
      const submission = parseWithZod(formData, { schema: RoomSchema });
      if (submission.status !== "success") return refusedForm(submission, { intent });
      // The form sends every field: an empty door or notes clears them.
      const { doorId, notes, ...fields } = submission.value;
      const updated = await rooms.updateRoom(id, { ...fields, doorId: doorId ?? null, notes: notes ?? null });
      if (!updated.ok) return refusedForm(updated, { intent, submission, toastTitle: "No se pudo actualizar la habitación" });
      return redirectWithToast(listUrl, successToast("Habitación actualizada", updated.room.name));
    }
    case "delete-room": {
      const deleted = await rooms.deleteRoom(id);
      if (!deleted.ok) return refusedForm(deleted, { intent, toastTitle: "No se pudo eliminar la habitación" });
      return redirectWithToast(listUrl, successToast("Habitación eliminada", deleted.room.name));
    }
    default:
      throwRefusal({ status: 400, message: "Acción no válida" });
  }
}
