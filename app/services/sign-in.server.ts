// Signing in, for the login page (through remix-auth's form strategy) and
// POST /api/auth/login alike: the password check, its Spanish refusals, and
// the limits on failures. Only failures count:
// - an address with too many failures (for any username) is refused;
// - a username with too many failures is refused only from addresses that
//   have failed for it, so nobody can lock its owner out from elsewhere;
// - a success clears that username's failures.
import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { issueApiToken } from "~/models/api-token.server";
import { verifyLogin, type User } from "~/models/user.server";
import { getClientIp } from "~/utils/client-ip.server";
import { clearRateLimit, countRateLimitHit, peekRateLimit, rateLimitCount } from "~/utils/rate-limit-rules.server";
import { refuse, type Refusal, type Result } from "~/utils/refusal.server";

export const LOGIN_FAILED = "Usuario o contraseña incorrectos";
export const LOGIN_INACTIVE = "Tu cuenta no está activa. Contacta con la administración.";

async function refusedBeforeTrying(ip: string, username: string): Promise<Refusal | null> {
  const fromAddress = await peekRateLimit("loginAddress", [ip]);
  if (fromAddress) return fromAddress;
  const forUsername = await peekRateLimit("loginUsername", [username]);
  if (forUsername && (await rateLimitCount("loginUsername", `${username}@${ip}`)) > 0) return forUsername;
  return null;
}

export async function signIn({ username, password, ip }: { username: string; password: string; ip: string }): Promise<Result<{ user: User }>> {
  const name = username.trim().toLowerCase();
  const limited = await refusedBeforeTrying(ip, name);
  if (limited) return limited;
  const result = await verifyLogin(username, password);
  if (!result.ok) {
    await countRateLimitHit("loginAddress", [ip]);
    await countRateLimitHit("loginUsername", [name, `${name}@${ip}`]);
    return refuse(401, result.reason === "inactive" ? LOGIN_INACTIVE : LOGIN_FAILED);
  }
  await clearRateLimit("loginUsername", [name, `${name}@${ip}`]);
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
