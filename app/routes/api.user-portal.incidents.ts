import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { ResidentIncidentSchema } from "~/schemas/resident-incident";
import { listResidentIncidents, reportResidentIncident } from "~/services/resident-incidents.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, parseOrFail, refuseApi } from "~/utils/api.server";
import { requireApiUser } from "~/utils/auth.server";
import { isMultipart, readPhotoForm } from "~/utils/photo-upload.server";

// GET /api/user-portal/incidents: the caller's incidents, newest first.
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireApiUser(request);
  return apiSuccess(await listResidentIncidents(user));
}

// POST /api/user-portal/incidents: JSON {title, category, location, description, priority?},
// or multipart/form-data with the same fields and up to 5 `photos` files.
export async function action({ request }: ActionFunctionArgs) {
  const user = await requireApiUser(request);
  if (request.method !== "POST") methodNotAllowed();
  if (!isMultipart(request)) {
    const reported = await reportResidentIncident(user, await parseJsonBody(request, ResidentIncidentSchema));
    if (!reported.ok) refuseApi(reported);
    return apiSuccess(reported.incident, 201);
  }
  const { formData, photos, problem } = await readPhotoForm(request);
  // A body too large to read has no fields to check.
  if (problem && !problem.field) refuseApi(problem);
  const fields = Object.fromEntries([...formData].filter(([, value]) => typeof value === "string" && value.trim() !== ""));
  const input = parseOrFail(ResidentIncidentSchema, fields);
  if (problem) refuseApi(problem);
  const reported = await reportResidentIncident(user, input, photos);
  if (!reported.ok) refuseApi(reported);
  return apiSuccess(reported.incident, 201);
}
