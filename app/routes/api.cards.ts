import type { LoaderFunctionArgs } from "@remix-run/node";
import { listCards } from "~/models/card.server";
import { CardListQuerySchema } from "~/schemas/card";
import { queryObject, toCardJson } from "~/services/card-admin.server";
import { apiSuccess, methodNotAllowed, parseOrFail } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/cards?sortBy&sortOrder&anonymousFilter&cardNumber&reassignable&limit
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const query = parseOrFail(CardListQuerySchema, queryObject(new URL(request.url).searchParams));
  const cards = await listCards(query);
  return apiSuccess(cards.map(toCardJson));
}

export async function action() {
  methodNotAllowed();
}
