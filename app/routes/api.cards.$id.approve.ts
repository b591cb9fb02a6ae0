import type { ActionFunctionArgs } from "@remix-run/node";
import { CardApproveSchema } from "~/schemas/card";
import { approveCard, getCardJson } from "~/services/cards.server";
import { apiSuccess, methodNotAllowed, parseOrFail, readOptionalJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

export async function loader({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}

// PUT /api/cards/{id}/approve {doorId?}: pending → active, and the door (its hardware code; a row id for one release) granted.
export async function action({ request, params }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "PUT") methodNotAllowed();
  const { doorId } = parseOrFail(CardApproveSchema, await readOptionalJsonBody(request));
  const cardId = params.id ?? "";
  const approved = await approveCard(cardId, doorId || null);
  if (!approved.ok) refuseApi(approved);
  const card = await getCardJson(cardId);
  if (!card.ok) refuseApi(card);
  return apiSuccess(card.card);
}
