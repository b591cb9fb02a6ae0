import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { ProfileSchema } from "~/schemas/profile";
import { toProfileJson, updateProfile } from "~/services/profile.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiUser } from "~/utils/auth.server";
import { privateAnswers } from "~/utils/headers";

// GET /api/user-portal/profile: the caller's profile.
export const loader = privateAnswers(async ({ request }: LoaderFunctionArgs) => {
  const user = await requireApiUser(request);
  return apiSuccess(toProfileJson(user));
});

// PUT /api/user-portal/profile {firstName, lastName?, email, phone?}
export const action = privateAnswers(async ({ request }: ActionFunctionArgs) => {
  const user = await requireApiUser(request);
  if (request.method !== "PUT") methodNotAllowed();
  const updated = await updateProfile(user, await parseJsonBody(request, ProfileSchema));
  if (!updated.ok) refuseApi(updated);
  return apiSuccess(updated.profile);
});
