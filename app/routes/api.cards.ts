import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { CardListQuerySchema } from "~/schemas/card";
import { listCardsJson } from "~/services/cards.server";
import { apiSuccess, methodNotAllowed, parseQuery } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/cards?sortBy&sortOrder&anonymousFilter&cardNumber&reassignable&limit
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  return apiSuccess(await listCardsJson(parseQuery(request, CardListQuerySchema)));
}

export async function action({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}
