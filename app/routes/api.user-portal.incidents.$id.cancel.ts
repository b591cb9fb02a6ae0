import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { cancelResidentIncident } from "~/services/resident-incidents.server";
import { apiSuccess, methodNotAllowed, refuseApi } from "~/utils/api.server";
import { requireApiUser } from "~/utils/auth.server";

// PUT /api/user-portal/incidents/{id}/cancel: only while open.
export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireApiUser(request);
  if (request.method !== "PUT") methodNotAllowed();
  const cancelled = await cancelResidentIncident(user, params.id ?? "");
  if (!cancelled.ok) refuseApi(cancelled);
  return apiSuccess(cancelled.incident);
}

export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiUser(request);
  methodNotAllowed();
}
