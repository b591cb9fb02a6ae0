import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { createApiCardAssignmentSchema } from "~/schemas/user";
import { assignCard, displayName, listUserCards } from "~/services/users.server";
import { apiSuccess, apiSuccessWithMessage, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";
import { todayInMadrid } from "~/utils/dates";

// GET /api/users/{userId}/cards: {cards}.
export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const listed = await listUserCards(params.id ?? "");
  if (!listed.ok) refuseApi(listed);
  return apiSuccess({ cards: listed.cards });
}

// POST /api/users/{userId}/cards {cardNumber | cardId, alias, description, cardType, expiresAt | expirationDate}:
// {card, reassigned, previousUser}. A card held by someone else is reassigned.
export async function action({ request, params }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "POST") methodNotAllowed();
  const input = await parseJsonBody(request, createApiCardAssignmentSchema({ today: todayInMadrid() }));
  const assigned = await assignCard(params.id ?? "", input);
  if (!assigned.ok) refuseApi(assigned);
  const { card, reassigned, previousUser } = assigned;
  const message = previousUser ? `Tarjeta reasignada exitosamente desde ${displayName(previousUser)}` : "Tarjeta asignada exitosamente";
  return apiSuccessWithMessage(
    message,
    {
      card,
      reassigned,
      previousUser: previousUser
        ? { _id: previousUser.id, username: previousUser.username, firstName: previousUser.firstName, lastName: previousUser.lastName }
        : null,
    },
    201,
  );
}
