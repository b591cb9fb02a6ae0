import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { DoorUpdateSchema } from "~/schemas/door";
import { deleteDoor, getDoor, toDoorJson, updateDoor } from "~/services/doors.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/doors/{id}
export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const found = await getDoor(params.id ?? "");
  if (!found.ok) refuseApi(found);
  return apiSuccess(toDoorJson(found.door));
}

// PUT /api/doors/{id} (any of name, location, status, description, doorId); DELETE /api/doors/{id}
export async function action({ request, params }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  const id = params.id ?? "";
  if (request.method === "DELETE") {
    const deleted = await deleteDoor(id);
    if (!deleted.ok) refuseApi(deleted);
    return apiSuccess({ _id: id });
  }
  if (request.method !== "PUT") methodNotAllowed();
  const updated = await updateDoor(id, await parseJsonBody(request, DoorUpdateSchema));
  if (!updated.ok) refuseApi(updated);
  return apiSuccess(toDoorJson(updated.door));
}
