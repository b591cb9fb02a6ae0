import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { ResidentIncidentUpdateSchema } from "~/schemas/resident-incident";
import { editResidentIncident, getResidentIncident } from "~/services/resident-incidents.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiUser } from "~/utils/auth.server";

// GET /api/user-portal/incidents/{id}: one of the caller's incidents (404 for anyone else's).
export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireApiUser(request);
  const found = await getResidentIncident(user, params.id ?? "");
  if (!found.ok) refuseApi(found);
  return apiSuccess(found.incident);
}

// PUT /api/user-portal/incidents/{id} {title?, category?, location?, description?, priority?}: only those sent change; only while open.
export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireApiUser(request);
  if (request.method !== "PUT") methodNotAllowed();
  const edited = await editResidentIncident(user, params.id ?? "", await parseJsonBody(request, ResidentIncidentUpdateSchema));
  if (!edited.ok) refuseApi(edited);
  return apiSuccess(edited.incident);
}
