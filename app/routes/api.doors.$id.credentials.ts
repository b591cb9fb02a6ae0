import type { ActionFunctionArgs } from "@remix-run/node";
import { issueBridgeCredential } from "~/models/door.server";
import { apiSuccess, methodNotAllowed } from "~/utils/api.server";
import { apiError, requireApiAdmin } from "~/utils/auth.server";

// POST /api/doors/{id}/credentials: a new MQTT credential for the door's
// bridge, shown once; the previous one stops working at once.
export async function loader() {
  methodNotAllowed();
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "POST") methodNotAllowed();
  await requireApiAdmin(request);
  const credential = await issueBridgeCredential(params.id ?? "");
  if (!credential) apiError(404, "Puerta no encontrada");
  return apiSuccess(credential, 200, { "Cache-Control": "no-store" });
}
