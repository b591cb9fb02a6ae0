import type { ActionFunctionArgs } from "@remix-run/node";
import { deleteHoliday } from "~/services/holidays.server";
import { apiSuccessWithMessage, methodNotAllowed, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// DELETE /api/holidays/{id}.
export async function action({ request, params }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "DELETE") methodNotAllowed();
  const deleted = await deleteHoliday(params.id ?? "");
  if (!deleted.ok) refuseApi(deleted);
  return apiSuccessWithMessage("Festivo eliminado", deleted.holiday);
}
