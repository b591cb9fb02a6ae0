import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { IncidentEditSchema } from "~/schemas/incident";
import { deleteIncident, getIncident, toIncidentJson, updateIncident } from "~/services/incidents.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/incidents/{id}
export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const found = await getIncident(params.id ?? "");
  if (!found.ok) refuseApi(found);
  return apiSuccess(toIncidentJson(found.incident));
}

// PUT /api/incidents/{id} {title, type, status, urgency, description}; DELETE /api/incidents/{id}.
export async function action({ request, params }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  const id = params.id ?? "";
  if (request.method === "DELETE") {
    const deleted = await deleteIncident(id);
    if (!deleted.ok) refuseApi(deleted);
    return apiSuccess({ _id: deleted.incident.id });
  }
  if (request.method !== "PUT") methodNotAllowed();
  const updated = await updateIncident(id, await parseJsonBody(request, IncidentEditSchema));
  if (!updated.ok) refuseApi(updated);
  return apiSuccess(toIncidentJson(updated.incident));
}
