import type { ActionFunctionArgs } from "@remix-run/node";
import { removeCardPermission } from "~/models/card.server";
import { refuseApi, requireCardJson } from "~/services/card-admin.server";
import { apiSuccess, methodNotAllowed } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

export async function loader() {
  methodNotAllowed();
}

// DELETE /api/cards/{id}/permissions/{doorId}: removes the card's permission on the door (row id).
export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "DELETE") methodNotAllowed();
  await requireApiAdmin(request);
  const cardId = params.id ?? "";
  const result = await removeCardPermission(cardId, params.doorId ?? "");
  if (!result.ok) refuseApi(result.reason);
  return apiSuccess(await requireCardJson(cardId));
}
