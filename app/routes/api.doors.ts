import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { createDoor } from "~/models/door.server";
import { DoorSchema } from "~/schemas/door";
import { DUPLICATE_DOOR_ID, isDuplicateDoorId, listDoorViews, toDoorView } from "~/services/door-admin.server";
import { apiSuccess, methodNotAllowed, parseJsonBody } from "~/utils/api.server";
import { apiError, requireApiAdmin } from "~/utils/auth.server";

export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  return apiSuccess(await listDoorViews());
}

export async function action({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "POST") methodNotAllowed();
  const input = await parseJsonBody(request, DoorSchema);
  try {
    return apiSuccess(toDoorView(await createDoor(input)), 201);
  } catch (error) {
    if (isDuplicateDoorId(error)) apiError(409, DUPLICATE_DOOR_ID);
    throw error;
  }
}
