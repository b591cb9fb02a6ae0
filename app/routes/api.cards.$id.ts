import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { CardUpdateSchema } from "~/schemas/card";
import { deleteCard, editCard, getCardDetail, getCardJson } from "~/services/cards.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/cards/{id}: the card and the doors it has no permission on yet.
export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const detail = await getCardDetail(params.id ?? "");
  if (!detail.ok) refuseApi(detail);
  return apiSuccess({ card: detail.card, availableDoors: detail.availableDoors });
}

// PUT /api/cards/{id} {alias?, status?}; DELETE /api/cards/{id}.
export async function action({ request, params }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  const cardId = params.id ?? "";
  if (request.method === "DELETE") {
    const deleted = await deleteCard(cardId);
    if (!deleted.ok) refuseApi(deleted);
    return apiSuccess({ cardNumber: deleted.cardNumber });
  }
  if (request.method !== "PUT") methodNotAllowed();
  const edited = await editCard(cardId, await parseJsonBody(request, CardUpdateSchema));
  if (!edited.ok) refuseApi(edited);
  const card = await getCardJson(cardId);
  if (!card.ok) refuseApi(card);
  return apiSuccess(card.card);
}
