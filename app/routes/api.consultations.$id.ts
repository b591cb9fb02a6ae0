import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { deleteConsultation } from "~/services/consultations.server";
import { apiSuccess, methodNotAllowed, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}

// DELETE /api/consultations/{id}
export async function action({ request, params }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "DELETE") methodNotAllowed();
  const deleted = await deleteConsultation(params.id ?? "");
  if (!deleted.ok) refuseApi(deleted);
  return apiSuccess({ _id: deleted.consultation.id });
}
