import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { UserUpdateSchema } from "~/schemas/user";
import { deleteUser, getUserJson, updateUser } from "~/services/users.server";
import { apiSuccess, apiSuccessWithMessage, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/users/{id}.
export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const found = await getUserJson(params.id ?? "");
  if (!found.ok) refuseApi(found);
  return apiSuccess(found.user);
}

// PUT /api/users/{id} (the whole profile; an empty or missing password keeps it); DELETE /api/users/{id}.
export async function action({ request, params }: ActionFunctionArgs) {
  const admin = await requireApiAdmin(request);
  const userId = params.id ?? "";
  if (request.method === "DELETE") {
    const deleted = await deleteUser(userId, admin);
    if (!deleted.ok) refuseApi(deleted);
    return apiSuccessWithMessage("Usuario eliminado", { ...deleted.user, releasedCards: deleted.releasedCards });
  }
  if (request.method !== "PUT") methodNotAllowed();
  const updated = await updateUser(userId, await parseJsonBody(request, UserUpdateSchema), admin);
  if (!updated.ok) refuseApi(updated);
  return apiSuccessWithMessage("Usuario actualizado exitosamente", updated.user);
}
