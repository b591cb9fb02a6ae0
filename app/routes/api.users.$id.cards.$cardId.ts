import type { ActionFunctionArgs } from "@remix-run/node";
import { createUserCardUpdateSchema } from "~/schemas/user";
import { editUserCard, unassignUserCard } from "~/services/users.server";
import { apiSuccessWithMessage, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";
import { todayInMadrid } from "~/utils/dates";

export async function loader({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}

// PUT /api/users/{userId}/cards/{cardId} {alias, description, cardType, expiresAt};
// DELETE /api/users/{userId}/cards/{cardId}: unassigns it (the card stays, inactive).
export async function action({ request, params }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  const userId = params.id ?? "";
  const cardId = params.cardId ?? "";
  if (request.method === "DELETE") {
    const unassigned = await unassignUserCard(userId, cardId);
    if (!unassigned.ok) refuseApi(unassigned);
    return apiSuccessWithMessage("Tarjeta desasignada", { cardNumber: unassigned.cardNumber });
  }
  if (request.method !== "PUT") methodNotAllowed();
  const edited = await editUserCard(userId, cardId, await parseJsonBody(request, createUserCardUpdateSchema({ today: todayInMadrid() })));
  if (!edited.ok) refuseApi(edited);
  return apiSuccessWithMessage("Tarjeta actualizada", edited.card);
}
