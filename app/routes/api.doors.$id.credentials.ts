import type { ActionFunctionArgs } from "@remix-run/node";
import { rotateBridgeCredential } from "~/services/doors.server";
import { apiSuccess, methodNotAllowed, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

export async function loader({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}

// POST /api/doors/{id}/credentials: a new MQTT credential for the door's
// bridge, shown once; the previous one stops working at once.
export async function action({ request, params }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "POST") methodNotAllowed();
  const rotated = await rotateBridgeCredential(params.id ?? "");
  if (!rotated.ok) refuseApi(rotated);
  return apiSuccess(rotated.credential, 200, { "Cache-Control": "no-store" });
}
