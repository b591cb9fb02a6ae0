import type { ActionFunctionArgs } from "@remix-run/node";
import { CardApproveSchema } from "~/schemas/card";
import { approveCard, getCardJson } from "~/services/cards.server";
import { apiSuccess, methodNotAllowed, parseOrFail, readOptionalJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

export async function loader({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}

// PUT /api/cards/{id}/approve {doorId?, schedule?, groupId?}: pending → active, the door (its hardware code; a row id for one
// release) granted with its hours (empty: always), the holder added to the group.
export async function action({ request, params }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "PUT") methodNotAllowed();
  const { doorId, schedule, groupId } = parseOrFail(CardApproveSchema, await readOptionalJsonBody(request));
  const cardId = params.id ?? "";
  const approved = await approveCard(cardId, { door: doorId || null, schedule, groupId: groupId || null });
  if (!approved.ok) refuseApi(approved);
  const card = await getCardJson(cardId);
  if (!card.ok) refuseApi(card);
  return apiSuccess(card.card);
}
