// Signing in, for the login page (through remix-auth's form strategy) and
// POST /api/auth/login alike: the password check, its Spanish refusals, and
// the limits on failures. Only failures count:
// - an address with too many failures (for any username) is refused;
// - a username with too many failures is refused only from addresses that
//   have failed for it, so nobody can lock its owner out from elsewhere;
// - a success clears that username's failures.
// Each attempt is counted as a failure before its password is checked (one
// atomic upsert per key), and a success takes its count back: attempts sent
// at once see each other, so no more than the limit are ever checked. And at
// most two sign-ins run at once in this process, with eight more waiting:
// beyond that a sign-in is refused at once (429), before it costs a write or
// a hash, so a burst neither queues up work for minutes nor holds the
// threads pages need.
import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { issueApiToken } from "~/models/api-token.server";
import { verifyLogin, type User } from "~/models/user.server";
import { getClientIp } from "~/utils/client-ip.server";
import { concurrencyLimit } from "~/utils/concurrency-limit.server";
import { clearRateLimit, hitRateLimit, takeBackRateLimitHit, TOO_MANY_ATTEMPTS } from "~/utils/rate-limit-rules.server";
import { refuse, type Refusal, type Result } from "~/utils/refusal.server";
import { countSignInFailure } from "./metrics.server";

export const LOGIN_FAILED = "Usuario o contraseña incorrectos";
export const LOGIN_INACTIVE = "Tu cuenta no está activa. Contacta con la administración.";

export const MAX_CONCURRENT_SIGN_INS = 2;
export const MAX_WAITING_SIGN_INS = 8;
const signIns = concurrencyLimit({ running: MAX_CONCURRENT_SIGN_INS, waiting: MAX_WAITING_SIGN_INS });

/** Sign-ins running and waiting for their turn. */
export function signInLoad() {
  return signIns.load();
}

export async function signIn(input: { username: string; password: string; ip: string }): Promise<Result<{ user: User }>> {
  const result = signIns.busy() ? refuse(429, TOO_MANY_ATTEMPTS, { retryAfterSeconds: 1 }) : await signIns.run(() => attemptSignIn(input));
  if (!result.ok) countSignInFailure(result.status === 429 ? "rate_limited" : result.message === LOGIN_INACTIVE ? "inactive" : "bad_credentials");
  return result;
}

async function attemptSignIn({ username, password, ip }: { username: string; password: string; ip: string }): Promise<Result<{ user: User }>> {
  const name = username.trim().toLowerCase();
  const [fromAddress] = await hitRateLimit("loginAddress", [ip]);
  if (fromAddress.refusal) return fromAddress.refusal;
  const [fromAddressForName, forName] = await hitRateLimit("loginUsername", [`${name}@${ip}`, name]);
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
