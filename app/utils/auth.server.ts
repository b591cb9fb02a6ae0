// Who is asking. Every loader and action of a protected route starts with one
// of these guards, before anything else (the method check of an API route
// included): pages use the cookie session, /api/* bearer tokens. Every
// mutation made with a browser's cookies must come from our own pages: the
// page guards check the origin of non-GET requests, and public forms start
// with requireSameOrigin.
import { redirect } from "@remix-run/node";
import { getUserByApiToken } from "~/models/api-token.server";
import { getUserOfSession, insertSession } from "~/models/session.server";
import type { User } from "~/models/user.server";
import { cookieSecurity, getClientIp } from "./client-ip.server";
import { sameSecret } from "./crypto.server";
import { getEnv } from "./env.server";
import { currentRequestContext, memoInRequest } from "./request-context.server";
import { refusalResponse, throwRefusal } from "./refusal.server";
import { CROSS_ORIGIN, isCrossSite } from "./same-origin.server";
import { getSession, getSessionStorage, SESSION_MAX_AGE_S } from "./session-cookie.server";
import { infoToast, successToast } from "./toast";
import { redirectWithToast } from "./toast.server";

export function homeFor(user: Pick<User, "role">) {
  return user.role === "admin" ? "/admin" : "/portal";
}

const REDIRECT_BASE = "http://redirect.invalid";

/**
 * Only same-origin relative paths: never an open redirect. Refused (giving
 * `fallback`): anything but a path starting with one "/", backslashes,
 * control characters (a browser drops a tab, so "/\t/evil" is "//evil"),
 * and their percent-encoded forms, and whatever resolving dot segments turns
 * into "//" (another host). Non-ASCII is percent-encoded, so the Location
 * header is always valid.
 */
export function safeRedirect(to: FormDataEntryValue | string | null | undefined, fallback: string) {
  if (!to || typeof to !== "string" || to.length > 2000) return fallback;
  let decoded: string;
  try {
    decoded = decodeURIComponent(to);
  } catch {
    return fallback;
  }
  for (const text of [to, decoded]) {
    if (!text.startsWith("/") || text.startsWith("//") || /[\\\u0000-\u001F\u007F]/.test(text)) return fallback;
  }
  const url = new URL(to, REDIRECT_BASE);
  const path = `${url.pathname}${url.search}${url.hash}`;
  // The answer is checked as the browser will read it: new URL() resolves dot
  // segments ("/.//evil", "/a/..//evil", "/%2e//evil" all become "//evil",
  // another host), so only a path that still starts with one "/" and reads
  // the same when resolved again is kept.
  if (url.origin !== REDIRECT_BASE || path.startsWith("//") || new URL(path, REDIRECT_BASE).href !== url.href) return fallback;
  return path;
}

/**
 * Notes who is asking on the request's context, for the audit trail
 * (app/services/audit.server.ts): the client's address, and the user once a
 * guard has found them.
 */
function noteRequester(request: Request, user?: Pick<User, "id" | "username" | "role">) {
  const context = currentRequestContext();
  if (!context) return;
  context.requester = {
    ip: getClientIp(request),
    user: user ? { id: user.id, username: user.username, role: user.role } : context.requester?.user,
  };
}

/**
 * The guard of public mutations (sign-in, sign-out, theme, public forms), and
 * part of every page guard: a cross-site browser request is refused (403).
 * A page's cross-site request is refused before Remix sees it
 * (http-server-patch.server.ts); this guard also covers the JSON API.
 */
export function requireSameOrigin(request: Request) {
  noteRequester(request);
  if (request.method === "GET" || request.method === "HEAD") return;
  const ownHosts = [new URL(request.url).host, new URL(getEnv().PUBLIC_URL).host];
  if (isCrossSite(request.headers.get("origin"), request.headers.get("sec-fetch-site"), ownHosts)) {
    throwRefusal({ status: 403, message: CROSS_ORIGIN });
  }
}

/** The Set-Cookie header that carries a session (opened by the sign-in service). */
export async function sessionCookieWith(sessionId: string) {
  const session = await getSessionStorage().getSession();
  session.set("sessionId", sessionId);
  return getSessionStorage().commitSession(session, cookieSecurity());
}

/** A new server-side session for the user, as its Set-Cookie header (tests and scripts; sign-ins go through services/sign-in). */
export async function sessionCookieFor(user: Pick<User, "id">) {
  return sessionCookieWith(await insertSession(user.id, new Date(Date.now() + SESSION_MAX_AGE_S * 1000)));
}

/** Signs the user in: the cookie of the session opened for them and a welcome toast, then on to `redirectTo`. */
export async function createUserSession({ user, sessionId }: { user: User; sessionId: string }, redirectTo: string) {
  return redirectWithToast(redirectTo, successToast(`Bienvenido, ${user.username}`), {
    headers: { "Set-Cookie": await sessionCookieWith(sessionId) },
  });
}

/**
 * Signs out in the browser: the cookie goes (the caller has ended its session
 * row with services/sign-in's signOut, so the old cookie opens nothing any more).
 */
export async function endUserSession(request: Request, redirectTo: string) {
  const session = await getSession(request);
  return redirectWithToast(redirectTo, infoToast("Sesión cerrada"), {
    headers: { "Set-Cookie": await getSessionStorage().destroySession(session, cookieSecurity()) },
  });
}

const SESSION_IDS_KEPT = 1000;
/**
 * Cookie header → the session id its signed session cookie holds: a pure
 * function of the header (the secret does not change while the process
 * runs), so a header seen before is not checked and decoded again (an HMAC
 * and a character-by-character decode, ~2 % of a signed-in page). Whether
 * that session is still open is read from the database on every request.
 */
const sessionIdsByCookie = new Map<string, string | null>();

/**
 * The id of the request's session (to keep it when the user's other sessions
 * end). The root loader, a layout's guard and the page's each ask: once per
 * page load, and the cookie's signature once per process.
 */
export async function getSessionId(request: Request): Promise<string | null> {
  return memoInRequest("session-id", async () => {
    const header = request.headers.get("Cookie");
    if (!header) return null;
    const known = sessionIdsByCookie.get(header);
    if (known !== undefined) return known;
    const sessionId = (await getSession(request)).get("sessionId") ?? null;
    if (sessionIdsByCookie.size >= SESSION_IDS_KEPT) sessionIdsByCookie.delete(sessionIdsByCookie.keys().next().value!);
    sessionIdsByCookie.set(header, sessionId);
    return sessionId;
  });
}

/** The signed-in, active user, or null. An ended session or a deactivated user is signed out here. */
export async function getOptionalUser(request: Request): Promise<User | null> {
  const sessionId = await getSessionId(request);
  if (!sessionId) return null;
  const user = await memoInRequest(`session-user:${sessionId}`, () => getUserOfSession(sessionId));
  if (user && user.status === "active") return user;
  throw redirect("/login", {
    headers: { "Set-Cookie": await getSessionStorage().destroySession(await getSession(request), cookieSecurity()) },
  });
}

function loginRedirect(request: Request) {
  const url = new URL(request.url);
  const redirectTo = `${url.pathname}${url.search}`;
  return redirect(`/login?${new URLSearchParams({ redirectTo })}`);
}

export async function requireUser(request: Request): Promise<User> {
  requireSameOrigin(request);
  const user = await getOptionalUser(request);
  if (!user) throw loginRedirect(request);
  noteRequester(request, user);
  return user;
}

export async function requireAdmin(request: Request): Promise<User> {
  const user = await requireUser(request);
  if (user.role !== "admin") throw redirect("/");
  return user;
}

/**
 * The JSON API's caller: a bearer token (SPEC §6), or else the browser's
 * session cookie, whose mutations must then come from our own pages.
 */
export async function requireApiUser(request: Request): Promise<User> {
  const header = request.headers.get("authorization");
  if (header) {
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const user = match ? await getUserByApiToken(match[1]!) : null;
    if (!user) throwRefusal({ status: 401, message: "Token inválido o expirado" });
    noteRequester(request, user);
    return user;
  }
  const sessionId = await getSessionId(request);
  const user = sessionId ? await getUserOfSession(sessionId) : null;
  if (!user || user.status !== "active") throwRefusal({ status: 401, message: "No autenticado" });
  requireSameOrigin(request);
  noteRequester(request, user);
  return user;
}

export async function requireApiAdmin(request: Request): Promise<User> {
  const user = await requireApiUser(request);
  if (user.role !== "admin") throwRefusal({ status: 403, message: "Acceso denegado" });
  return user;
}

/**
 * GET /metrics: a scraper with METRICS_TOKEN as its bearer token. While the
 * token is unset the endpoint does not exist (404); a missing or wrong token
 * is a 401.
 */
export function requireMetricsToken(request: Request) {
  const expected = getEnv().METRICS_TOKEN;
  if (!expected) throwRefusal({ status: 404, message: "Recurso no encontrado" });
  const sent = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  if (sent && sameSecret(sent, expected)) return;
  const refusal = refusalResponse({ status: 401, message: "Token inválido" });
  refusal.headers.set("WWW-Authenticate", 'Bearer realm="metrics"');
  throw refusal;
}
