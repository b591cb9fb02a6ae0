// Signing in, for the login page (through remix-auth's form strategy) and
// POST /api/auth/login alike: rate limits per address and per username, the
// password check, and the refusals' Spanish messages.
import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { issueApiToken } from "~/models/api-token.server";
import { verifyLogin, type User } from "~/models/user.server";
import { getClientIp } from "~/utils/client-ip.server";
import { refuse, type Refusal, type Result } from "~/utils/refusal.server";
import { checkRateLimit, clearRateLimit } from "~/utils/rate-limit.server";

export const LOGIN_FAILED = "Usuario o contraseña incorrectos";
export const LOGIN_INACTIVE = "Tu cuenta no está activa. Contacta con la administración.";

export async function signIn({ username, password, ip }: { username: string; password: string; ip: string }): Promise<Result<{ user: User }>> {
  const userKey = `user:${username.trim().toLowerCase()}`;
  const limited = await checkRateLimit("login", [`ip:${ip}`, userKey]);
  if (limited) return limited;
  const result = await verifyLogin(username, password);
  if (!result.ok) return refuse(401, result.reason === "inactive" ? LOGIN_INACTIVE : LOGIN_FAILED);
  await clearRateLimit("login", [userKey]);
  return { ok: true, user: result.user };
}

/** A bearer token for the JSON API (POST /api/auth/login). */
export async function signInForApi(input: { username: string; password: string; ip: string }) {
  const signedIn = await signIn(input);
  if (!signedIn.ok) return signedIn;
  const { token, expiresAt } = await issueApiToken(signedIn.user.id);
  return { ok: true as const, user: signedIn.user, token, expiresAt };
}

/** What the form strategy throws when signing in is refused. */
export class SignInRefused extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.message);
  }
}

export const authenticator = new Authenticator<User>();

authenticator.use(
  new FormStrategy(async ({ form, request }) => {
    const signedIn = await signIn({
      username: String(form.get("username") ?? ""),
      password: String(form.get("password") ?? ""),
      ip: getClientIp(request),
    });
    if (!signedIn.ok) throw new SignInRefused(signedIn);
    return signedIn.user;
  }),
  "form",
);
