import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { PasswordChangeSchema } from "~/schemas/profile";
import { changeOwnPassword } from "~/services/profile.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiUser } from "~/utils/auth.server";

// PUT /api/user-portal/password {currentPassword, newPassword}
export async function action({ request }: ActionFunctionArgs) {
  const user = await requireApiUser(request);
  if (request.method !== "PUT") methodNotAllowed();
  const changed = await changeOwnPassword(user, await parseJsonBody(request, PasswordChangeSchema));
  if (!changed.ok) refuseApi(changed);
  return apiSuccess({ changed: true });
}

export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiUser(request);
  methodNotAllowed();
}
