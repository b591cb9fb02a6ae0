import type { ActionFunctionArgs } from "@remix-run/node";
import { DoorMessagesUpdateSchema } from "~/schemas/door";
import { setDoorMessages, toDoorJson } from "~/services/doors.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

export async function loader({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}

// PUT /api/doors/{id}/messages {useCustomMessages?, customStatus?, customMessage?}: only those sent change.
export async function action({ request, params }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "PUT") methodNotAllowed();
  const saved = await setDoorMessages(params.id ?? "", await parseJsonBody(request, DoorMessagesUpdateSchema));
  if (!saved.ok) refuseApi({ ...saved, message: `${saved.message}: puerta no encontrada` });
  return apiSuccess(toDoorJson(saved.door));
}
