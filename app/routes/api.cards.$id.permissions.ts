import type { ActionFunctionArgs } from "@remix-run/node";
import { CardPermissionSchema } from "~/schemas/card";
import { getCardJson, setCardPermission } from "~/services/cards.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

export async function loader({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}

// POST /api/cards/{id}/permissions {doorId, granted, schedule?}: sets the card's permission on the door (its hardware code; a row id for one release).
export async function action({ request, params }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "POST") methodNotAllowed();
  const { doorId, granted, schedule } = await parseJsonBody(request, CardPermissionSchema);
  const cardId = params.id ?? "";
  const saved = await setCardPermission(cardId, doorId, granted, schedule);
  if (!saved.ok) refuseApi(saved);
  const card = await getCardJson(cardId);
  if (!card.ok) refuseApi(card);
  return apiSuccess(card.card);
}
