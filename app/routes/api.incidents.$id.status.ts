import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { IncidentStatusSchema } from "~/schemas/incident";
import { changeIncidentStatus, toIncidentJson } from "~/services/incidents.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}

// PUT /api/incidents/{id}/status {status}: a resident's incident tells its reporter.
export async function action({ request, params }: ActionFunctionArgs) {
  const admin = await requireApiAdmin(request);
  if (request.method !== "PUT") methodNotAllowed();
  const { status } = await parseJsonBody(request, IncidentStatusSchema);
  const changed = await changeIncidentStatus(params.id ?? "", status, admin);
  if (!changed.ok) refuseApi(changed);
  return apiSuccess(toIncidentJson(changed.incident));
}
