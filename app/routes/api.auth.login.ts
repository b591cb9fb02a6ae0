import type { ActionFunctionArgs } from "@remix-run/node";
import { issueApiToken } from "~/models/api-token.server";
import { toPublicUser, verifyLogin } from "~/models/user.server";
import { LoginSchema } from "~/schemas/login";
import { parseJsonBody, apiSuccess, methodNotAllowed } from "~/utils/api.server";
import { apiError, LOGIN_FAILED, LOGIN_INACTIVE } from "~/utils/auth.server";
import { enforceRateLimit, RATE_LIMITS, resetRateLimit } from "~/utils/rate-limit.server";
import { getClientIp } from "~/utils/request.server";

export async function loader() {
  methodNotAllowed();
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") methodNotAllowed();
  const { username, password } = await parseJsonBody(request, LoginSchema);
  const usernameKey = `login:user:${username.toLowerCase()}`;
  await enforceRateLimit([`login:ip:${getClientIp(request)}`, usernameKey], RATE_LIMITS.login);
  const result = await verifyLogin(username, password);
  if (!result.ok) apiError(401, result.reason === "inactive" ? LOGIN_INACTIVE : LOGIN_FAILED);
  await resetRateLimit(usernameKey);
  const { token, expiresAt } = await issueApiToken(result.user.id);
  return apiSuccess({ token, expiresAt: expiresAt.toISOString(), user: toPublicUser(result.user) });
}
