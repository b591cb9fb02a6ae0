import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { ProfileSchema } from "~/schemas/profile";
import { toProfileJson, updateProfile } from "~/services/profile.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiUser } from "~/utils/auth.server";

// GET /api/user-portal/profile: the caller's profile.
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireApiUser(request);
  return apiSuccess(toProfileJson(user));
}

// PUT /api/user-portal/profile {firstName, lastName?, email, phone?}
export async function action({ request }: ActionFunctionArgs) {
  const user = await requireApiUser(request);
  if (request.method !== "PUT") methodNotAllowed();
  const updated = await updateProfile(user, await parseJsonBody(request, ProfileSchema));
  if (!updated.ok) refuseApi(updated);
  return apiSuccess(updated.profile);
}
