import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { ConsultationUpdateSchema } from "~/schemas/consultation";
import { updateConsultation } from "~/services/consultations.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}

// PUT /api/consultations/{id}/status {status} or {adminNotes} (or both).
export async function action({ request, params }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "PUT") methodNotAllowed();
  const updated = await updateConsultation(params.id ?? "", await parseJsonBody(request, ConsultationUpdateSchema));
  if (!updated.ok) refuseApi(updated);
  return apiSuccess(updated.consultation);
}
