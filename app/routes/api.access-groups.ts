import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { AccessGroupCreateSchema } from "~/schemas/access-group";
import { createAccessGroup, listAccessGroups } from "~/services/access-groups.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/access-groups: every group with its doors and timetables.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  return apiSuccess(await listAccessGroups());
}

// POST /api/access-groups {name, doors: [{doorId, schedule}]}
export async function action({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "POST") methodNotAllowed();
  const created = await createAccessGroup(await parseJsonBody(request, AccessGroupCreateSchema));
  if (!created.ok) refuseApi(created);
  return apiSuccess(created.group, 201);
}
