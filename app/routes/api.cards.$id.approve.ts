import type { ActionFunctionArgs } from "@remix-run/node";
import { approveCard } from "~/models/card.server";
import { CardApproveSchema } from "~/schemas/card";
import { refuseApi, requireCardJson } from "~/services/card-admin.server";
import { apiSuccess, methodNotAllowed, parseOrFail, readJsonBody } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

export async function loader() {
  methodNotAllowed();
}

// PUT /api/cards/{id}/approve {doorId?}: pending → active, and the door (row id) granted.
export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "PUT") methodNotAllowed();
  await requireApiAdmin(request);
  // The body is optional: approving without a door sends none.
  const hasBody = (await request.clone().text()).trim() !== "";
  const { doorId } = parseOrFail(CardApproveSchema, hasBody ? await readJsonBody(request) : {});
  const cardId = params.id ?? "";
  const result = await approveCard(cardId, doorId || null);
  if (!result.ok) refuseApi(result.reason);
  return apiSuccess(await requireCardJson(cardId));
}
