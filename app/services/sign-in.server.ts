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
import { deleteSession, getUserOfSession, insertSession } from "~/models/session.server";
import { verifyLogin, type User } from "~/models/user.server";
import { getClientIp } from "~/utils/client-ip.server";
import { concurrencyLimit } from "~/utils/concurrency-limit.server";
import { clearRateLimit, hitRateLimit, RATE_LIMITS, takeBackRateLimitHit, TOO_MANY_ATTEMPTS } from "./rate-limits.server";
import { refuse, type Refusal, type Result } from "~/utils/refusal.server";
import { SESSION_MAX_AGE_S } from "~/utils/session-cookie.server";
import { anonymousActor, audited } from "./audit.server";
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

/** How a sign-in is kept: a browser session (its id, for the cookie) or a bearer token for the JSON API. */
type Grant = { via: "session"; sessionId: string } | { via: "token"; token: string; expiresAt: Date };
type SignedIn<G extends Grant> = Result<{ user: User; grant: G }>;

/** Signs in for a browser: a new session row, recorded with its audit event. */
export async function signIn(input: { username: string; password: string; ip: string }) {
  return gatedSignIn(input, "session") as Promise<SignedIn<Extract<Grant, { via: "session" }>>>;
}

async function gatedSignIn(input: { username: string; password: string; ip: string }, via: Grant["via"]): Promise<SignedIn<Grant>> {
  // A busy gate refuses before any write or event: a burst costs nothing but this answer.
  const result = signIns.busy() ? refuse(429, TOO_MANY_ATTEMPTS, { retryAfterSeconds: 1 }) : await signIns.run(() => attemptSignIn(input, via));
  if (!result.ok) countSignInFailure(result.status === 429 ? "rate_limited" : result.message === LOGIN_INACTIVE ? "inactive" : "bad_credentials");
  return result;
}

async function attemptSignIn({ username, password, ip }: { username: string; password: string; ip: string }, via: Grant["via"]): Promise<SignedIn<Grant>> {
  const name = username.trim().toLowerCase();
  const [fromAddress] = await hitRateLimit("loginAddress", [ip]);
  if (fromAddress.refusal) {
    if (fromAddress.count === RATE_LIMITS.loginAddress.limit + 1) await recordLockout(name, `desde ${ip}`, RATE_LIMITS.loginAddress);
    return fromAddress.refusal;
  }
  const [fromAddressForName, forName] = await hitRateLimit("loginUsername", [`${name}@${ip}`, name]);
  // This address failed for this username before (its count holds this attempt too).
  if (forName.refusal && fromAddressForName.count > 1) {
    if (fromAddressForName.count === RATE_LIMITS.loginUsername.limit + 1 || forName.count === RATE_LIMITS.loginUsername.limit + 1) {
      await recordLockout(name, `para el usuario ${name}`, RATE_LIMITS.loginUsername);
    }
    return forName.refusal;
  }

  const result = await verifyLogin(username, password);
  if (!result.ok) {
    const inactive = result.reason === "inactive";
    await audited(
      async (audit) =>
        audit({
          action: "session.sign_in_refused",
          entityType: "session",
          entityId: null,
          summary: inactive ? "intentó iniciar sesión con una cuenta inactiva" : "intentó iniciar sesión con una contraseña incorrecta",
          after: { username: name, reason: inactive ? "inactive" : "wrong_credentials" },
        }),
      { actor: anonymousActor(name) },
    );
    return refuse(401, inactive ? LOGIN_INACTIVE : LOGIN_FAILED);
  }
  const { user } = result;
  const grant = await audited(
    async (audit): Promise<Grant> => {
      await takeBackRateLimitHit("loginAddress", [fromAddress]);
      await clearRateLimit("loginUsername", [name, `${name}@${ip}`]);
      const opened: Grant =
        via === "session"
          ? { via, sessionId: await insertSession(user.id, new Date(Date.now() + SESSION_MAX_AGE_S * 1000)) }
          : { via, ...(await issueApiToken(user.id)) };
      audit({
        action: "session.sign_in",
        entityType: "session",
        entityId: user.id,
        summary: via === "session" ? "inició sesión" : "inició sesión en la API",
        after: { via: via === "session" ? "web" : "api" },
      });
      return opened;
    },
    { actor: { id: user.id, username: user.username, role: user.role === "admin" ? "admin" : "user" } },
  );
  return { ok: true, user, grant };
}

/** The first attempt refused by a sign-in limit: the lockout starts (later refused attempts add no event). */
function recordLockout(name: string, scope: string, rule: { limit: number; windowMs: number }) {
  return audited(
    async (audit) =>
      audit({
        action: "session.lockout",
        entityType: "session",
        entityId: null,
        summary: `quedó bloqueado ${scope} tras ${rule.limit} intentos fallidos (${Math.round(rule.windowMs / 60_000)} minutos)`,
        after: { username: name, scope, attempts: rule.limit, minutes: Math.round(rule.windowMs / 60_000) },
      }),
    { actor: anonymousActor(name) },
  );
}

/** A bearer token for the JSON API (POST /api/auth/login). */
export async function signInForApi(input: { username: string; password: string; ip: string }) {
  const signedIn = await gatedSignIn(input, "token");
  if (!signedIn.ok) return signedIn;
  const { grant } = signedIn;
  if (grant.via !== "token") throw new Error("signInForApi: expected a token");
  return { ok: true as const, user: signedIn.user, token: grant.token, expiresAt: grant.expiresAt };
}

/**
 * Signs the session out: its row goes (so its cookie opens nothing any more),
 * recorded as its user's sign-out. A session already expired or gone leaves
 * no event.
 */
export async function signOut(sessionId: string) {
  const user = await getUserOfSession(sessionId);
  if (!user) {
    await deleteSession(sessionId);
    return;
  }
  await audited(
    async (audit) => {
      await deleteSession(sessionId);
      audit({ action: "session.sign_out", entityType: "session", entityId: user.id, summary: "cerró sesión" });
    },
    { actor: { id: user.id, username: user.username, role: user.role === "admin" ? "admin" : "user" } },
  );
}

/** What the form strategy throws when signing in is refused. */
export class SignInRefused extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.message);
  }
}

/** Who signed in through the form, and the session opened for them. */
export type FormSignIn = { user: User; sessionId: string };

export const authenticator = new Authenticator<FormSignIn>();

authenticator.use(
  new FormStrategy(async ({ form, request }) => {
    const signedIn = await signIn({
      username: String(form.get("username") ?? ""),
      password: String(form.get("password") ?? ""),
      ip: getClientIp(request),
    });
    if (!signedIn.ok) throw new SignInRefused(signedIn);
    return { user: signedIn.user, sessionId: signedIn.grant.sessionId };
  }),
  "form",
);
