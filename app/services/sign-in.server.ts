// Signing in, for the login page (through remix-auth's form strategy) and
// POST /api/auth/login alike: the password check, its Spanish refusals, and
// the limits on failures. Only failures count:
// - an address with too many failures (for any username) is refused;
// - a username with too many failures is refused only from addresses that
//   have failed for it, so nobody can lock its owner out from elsewhere;
// - a success clears that username's failures.
// Each attempt is counted as a failure before its password is checked (one
// atomic upsert per key), and a success takes its count back: attempts sent
// at once see each other, so no more than the limit are ever checked. While
// too many password hashes wait for their turn (crypto.server.ts runs two at
// a time), a sign-in is refused at once, without counting, so a burst cannot
// queue up work for minutes.
import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { issueApiToken } from "~/models/api-token.server";
import { verifyLogin, type User } from "~/models/user.server";
import { getClientIp } from "~/utils/client-ip.server";
import { passwordHashLoad } from "~/utils/crypto.server";
import { clearRateLimit, hitRateLimit, takeBackRateLimitHit, TOO_MANY_ATTEMPTS } from "~/utils/rate-limit-rules.server";
import { refuse, type Refusal, type Result } from "~/utils/refusal.server";

export const LOGIN_FAILED = "Usuario o contraseña incorrectos";
export const LOGIN_INACTIVE = "Tu cuenta no está activa. Contacta con la administración.";

/** Sign-ins refused while this many password hashes already wait for a slot. */
export const MAX_WAITING_SIGN_INS = 8;

export async function signIn({ username, password, ip }: { username: string; password: string; ip: string }): Promise<Result<{ user: User }>> {
  const name = username.trim().toLowerCase();
  if (passwordHashLoad().waiting >= MAX_WAITING_SIGN_INS) return refuse(429, TOO_MANY_ATTEMPTS, { retryAfterSeconds: 1 });
  const fromAddress = await hitRateLimit("loginAddress", ip);
  if (fromAddress.refusal) return fromAddress.refusal;
  const fromAddressForName = await hitRateLimit("loginUsername", `${name}@${ip}`);
  const forName = await hitRateLimit("loginUsername", name);
  // This address failed for this username before (its count holds this attempt too).
  if (forName.refusal && fromAddressForName.count > 1) return forName.refusal;

  const result = await verifyLogin(username, password);
  if (!result.ok) return refuse(401, result.reason === "inactive" ? LOGIN_INACTIVE : LOGIN_FAILED);
  await takeBackRateLimitHit("loginAddress", [fromAddress]);
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
