import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { RoomUpdateSchema } from "~/schemas/room";
import { deleteRoom, getRoom, updateRoom } from "~/services/rooms.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/rooms/{id} (admin)
export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const found = await getRoom(params.id ?? "");
  if (!found.ok) refuseApi(found);
  return apiSuccess(found.room);
}

// PUT /api/rooms/{id} (the fields sent) · DELETE /api/rooms/{id} (admin)
export async function action({ request, params }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  const id = params.id ?? "";
  if (request.method === "DELETE") {
    const deleted = await deleteRoom(id);
    if (!deleted.ok) refuseApi(deleted);
    return apiSuccess({ _id: id });
  }
  if (request.method !== "PUT") methodNotAllowed();
  const updated = await updateRoom(id, await parseJsonBody(request, RoomUpdateSchema));
  if (!updated.ok) refuseApi(updated);
  return apiSuccess(updated.room);
}
