import type { ActionFunctionArgs } from "@remix-run/node";
import { setCardPermission } from "~/models/card.server";
import { CardPermissionSchema } from "~/schemas/card";
import { refuseApi, requireCardJson } from "~/services/card-admin.server";
import { apiSuccess, methodNotAllowed, parseJsonBody } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

export async function loader() {
  methodNotAllowed();
}

// POST /api/cards/{id}/permissions {doorId, granted}: sets the card's permission on the door (row id).
export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "POST") methodNotAllowed();
  await requireApiAdmin(request);
  const { doorId, granted } = await parseJsonBody(request, CardPermissionSchema);
  const cardId = params.id ?? "";
  const result = await setCardPermission(cardId, doorId, granted);
  if (!result.ok) refuseApi(result.reason);
  return apiSuccess(await requireCardJson(cardId));
}
