import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { AccessGroupUpdateSchema } from "~/schemas/access-group";
import { deleteAccessGroup, getAccessGroup, updateAccessGroup } from "~/services/access-groups.server";
import { apiSuccess, apiSuccessWithMessage, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/access-groups/{id}.
export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const found = await getAccessGroup(params.id ?? "");
  if (!found.ok) refuseApi(found);
  return apiSuccess(found.group);
}

// PUT /api/access-groups/{id} {name?, doors?}; DELETE /api/access-groups/{id}.
export async function action({ request, params }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  const id = params.id ?? "";
  if (request.method === "DELETE") {
    const deleted = await deleteAccessGroup(id);
    if (!deleted.ok) refuseApi(deleted);
    return apiSuccessWithMessage("Grupo de acceso eliminado", deleted.group);
  }
  if (request.method !== "PUT") methodNotAllowed();
  const updated = await updateAccessGroup(id, await parseJsonBody(request, AccessGroupUpdateSchema));
  if (!updated.ok) refuseApi(updated);
  return apiSuccess(updated.group);
}
