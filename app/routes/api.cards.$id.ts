import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { deleteCard, editCard } from "~/models/card.server";
import { CardUpdateSchema } from "~/schemas/card";
import { loadCardDetail, refuseApi, requireCardJson } from "~/services/card-admin.server";
import { apiSuccess, methodNotAllowed, parseJsonBody } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/cards/{id}: the card and the doors it has no permission on yet.
export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const detail = await loadCardDetail(params.id ?? "");
  if (!detail) refuseApi("not_found");
  return apiSuccess({ card: detail.card, availableDoors: detail.availableDoors });
}

// PUT /api/cards/{id} {alias?, status?}; DELETE /api/cards/{id}.
export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "PUT" && request.method !== "DELETE") methodNotAllowed();
  await requireApiAdmin(request);
  const cardId = params.id ?? "";
  if (request.method === "DELETE") {
    const result = await deleteCard(cardId);
    if (!result.ok) refuseApi(result.reason);
    return apiSuccess({ cardNumber: result.cardNumber });
  }
  const edit = await parseJsonBody(request, CardUpdateSchema);
  const result = await editCard(cardId, edit);
  if (!result.ok) refuseApi(result.reason);
  return apiSuccess(await requireCardJson(cardId));
}
