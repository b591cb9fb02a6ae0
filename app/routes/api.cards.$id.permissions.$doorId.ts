import type { ActionFunctionArgs } from "@remix-run/node";
import { getCardJson, removeCardPermission } from "~/services/cards.server";
import { apiSuccess, methodNotAllowed, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

export async function loader({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}

// DELETE /api/cards/{id}/permissions/{doorId}: removes the card's permission on the door (its hardware code; a row id for one release).
export async function action({ request, params }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "DELETE") methodNotAllowed();
  const cardId = params.id ?? "";
  const removed = await removeCardPermission(cardId, params.doorId ?? "");
  if (!removed.ok) refuseApi(removed);
  const card = await getCardJson(cardId);
  if (!card.ok) refuseApi(card);
  return apiSuccess(card.card);
}
