import type { ActionFunctionArgs } from "@remix-run/node";
import { LoginSchema } from "~/schemas/login";
import { signInForApi } from "~/services/sign-in.server";
import { toPublicUser } from "~/services/users.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireSameOrigin } from "~/utils/auth.server";
import { privateAnswers } from "~/utils/headers";
import { getClientIp } from "~/utils/client-ip.server";

export const loader = privateAnswers(async () => {
  methodNotAllowed();
});

// POST /api/auth/login {username, password}: a bearer token for the JSON API.
export const action = privateAnswers(async ({ request }: ActionFunctionArgs) => {
  requireSameOrigin(request);
  if (request.method !== "POST") methodNotAllowed();
  const { username, password } = await parseJsonBody(request, LoginSchema);
  const signedIn = await signInForApi({ username, password, ip: getClientIp(request) });
  if (!signedIn.ok) refuseApi(signedIn);
  return apiSuccess({ token: signedIn.token, expiresAt: signedIn.expiresAt.toISOString(), user: toPublicUser(signedIn.user) });
});
