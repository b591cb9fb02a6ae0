import type { ActionFunctionArgs } from "@remix-run/node";
import { z } from "zod";
import { setDoorMessages } from "~/models/door.server";
import { DoorMessagesSchema } from "~/schemas/door";
import { toDoorView } from "~/services/door-admin.server";
import { apiSuccess, methodNotAllowed, parseJsonBody } from "~/utils/api.server";
import { apiError, requireApiAdmin } from "~/utils/auth.server";

const MessagesBody = DoorMessagesSchema.extend({ useCustomMessages: z.boolean({ error: "useCustomMessages debe ser verdadero o falso" }) });

export async function loader() {
  methodNotAllowed();
}

export async function action({ request, params }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "PUT") methodNotAllowed();
  const { useCustomMessages, customStatus, customMessage } = await parseJsonBody(request, MessagesBody);
  const door = await setDoorMessages(params.id!, {
    useCustomMessages,
    customStatus: customStatus || null,
    customMessage: customMessage || null,
  });
  if (!door) apiError(404, "No se pudo actualizar el mensaje: puerta no encontrada");
  return apiSuccess(toDoorView(door));
}
