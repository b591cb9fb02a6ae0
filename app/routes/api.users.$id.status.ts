import type { ActionFunctionArgs } from "@remix-run/node";
import { USER_STATUS_LABELS, UserStatusSchema } from "~/schemas/user";
import { changeUserStatus, getUserJson } from "~/services/users.server";
import { apiSuccessWithMessage, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

export async function loader({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}

const DONE = { active: "Usuario activado", inactive: "Usuario inactivado", suspended: "Usuario suspendido" } as const;

// PUT /api/users/{id}/status {status}: {success, message, data: user}.
export async function action({ request, params }: ActionFunctionArgs) {
  const admin = await requireApiAdmin(request);
  if (request.method !== "PUT") methodNotAllowed();
  const { status } = await parseJsonBody(request, UserStatusSchema);
  const userId = params.id ?? "";
  const changed = await changeUserStatus(userId, status, admin);
  if (!changed.ok) refuseApi(changed);
  const user = await getUserJson(userId);
  if (!user.ok) refuseApi(user);
  const message = changed.changed ? DONE[status] : `El usuario ya estaba ${USER_STATUS_LABELS[status].toLowerCase()}`;
  return apiSuccessWithMessage(message, user.user);
}
