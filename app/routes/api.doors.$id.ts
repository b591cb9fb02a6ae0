import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { deleteDoor, getDoorById, updateDoor } from "~/models/door.server";
import { DoorSchema } from "~/schemas/door";
import { DUPLICATE_DOOR_ID, isDuplicateDoorId, toDoorView } from "~/services/door-admin.server";
import { apiSuccess, methodNotAllowed, parseJsonBody } from "~/utils/api.server";
import { apiError, requireApiAdmin } from "~/utils/auth.server";

// PUT accepts any subset of the door's fields (SPEC: name, location, status, description; doorId too).
const DoorUpdateSchema = DoorSchema.partial().refine((fields) => Object.keys(fields).length > 0, "No hay cambios que guardar");

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const door = await getDoorById(params.id!);
  if (!door) apiError(404, "Puerta no encontrada");
  return apiSuccess(toDoorView(door));
}

export async function action({ request, params }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method === "DELETE") {
    if (!(await deleteDoor(params.id!))) apiError(404, "Puerta no encontrada");
    return apiSuccess({ _id: params.id });
  }
  if (request.method !== "PUT") methodNotAllowed();
  const fields = await parseJsonBody(request, DoorUpdateSchema);
  try {
    const door = await updateDoor(params.id!, fields);
    if (!door) apiError(404, "Puerta no encontrada");
    return apiSuccess(toDoorView(door));
  } catch (error) {
    if (isDuplicateDoorId(error)) apiError(409, DUPLICATE_DOOR_ID);
    throw error;
  }
}
