// Who is asking. Every loader and action of a protected route starts with one
// of these guards, before anything else (the method check of an API route
// included): pages use the cookie session, /api/* bearer tokens. Every
// mutation made with a browser's cookies must come from our own pages: the
// page guards check the origin of non-GET requests, and public forms start
// with requireSameOrigin.
import { redirect } from "@remix-run/node";
import { getUserByApiToken } from "~/models/api-token.server";
import type { User } from "~/models/user.server";
import { getUserById } from "~/models/user.server";
import { getEnv } from "./env.server";
import { throwRefusal } from "./refusal.server";
import { getSession, getSessionStorage } from "./session.server";
import { infoToast, successToast } from "./toast";
import { redirectWithToast } from "./toast.server";

export function homeFor(user: Pick<User, "role">) {
  return user.role === "admin" ? "/admin" : "/";
}

/** Only same-site paths: never an open redirect to another host. */
export function safeRedirect(to: FormDataEntryValue | string | null | undefined, fallback: string) {
  if (!to || typeof to !== "string") return fallback;
  if (!to.startsWith("/") || to.startsWith("//") || to.startsWith("/\\")) return fallback;
  return to;
}

const CROSS_ORIGIN = "Solicitud rechazada: origen no permitido.";

/**
 * The guard of public mutations (sign-in, sign-out, theme, public forms), and
 * part of every page guard: a cross-site browser request is refused (403). A
 * browser always sends Origin (or Sec-Fetch-Site) on a cross-site POST.
 */
export function requireSameOrigin(request: Request) {
  if (request.method === "GET" || request.method === "HEAD") return;
  const origin = request.headers.get("origin");
  if (origin && origin !== "null") {
    let host: string | null = null;
    try {
      host = new URL(origin).host;
    } catch {
      host = null;
    }
    const ownHosts = new Set([new URL(request.url).host, new URL(getEnv().PUBLIC_URL).host]);
    if (host && ownHosts.has(host)) return;
    throwRefusal({ status: 403, message: CROSS_ORIGIN });
  }
  if (origin === "null" || request.headers.get("sec-fetch-site") === "cross-site") {
    throwRefusal({ status: 403, message: CROSS_ORIGIN });
  }
}

/** Signs the user in: a new session cookie and a welcome toast, then on to `redirectTo`. */
export async function createUserSession(request: Request, user: User, redirectTo: string) {
  const session = await getSession(request);
  session.set("userId", user.id);
  return redirectWithToast(redirectTo, successToast(`Bienvenido, ${user.username}`), {
    headers: { "Set-Cookie": await getSessionStorage().commitSession(session) },
  });
}

export async function endUserSession(request: Request, redirectTo: string) {
  const session = await getSession(request);
  session.unset("userId");
  return redirectWithToast(redirectTo, infoToast("Sesión cerrada"), {
    headers: { "Set-Cookie": await getSessionStorage().commitSession(session) },
  });
}

/** The signed-in, active user, or null. A deactivated user is signed out here. */
export async function getOptionalUser(request: Request): Promise<User | null> {
  const session = await getSession(request);
  const userId = session.get("userId");
  if (!userId) return null;
  const user = await getUserById(userId);
  if (user && user.status === "active") return user;
  throw redirect("/login", {
    headers: { "Set-Cookie": await getSessionStorage().destroySession(session) },
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
    return user;
  }
  const session = await getSession(request);
  const user = session.get("userId") ? await getUserById(session.get("userId")!) : undefined;
  if (!user || user.status !== "active") throwRefusal({ status: 401, message: "No autenticado" });
  requireSameOrigin(request);
  return user;
}

export async function requireApiAdmin(request: Request): Promise<User> {
  const user = await requireApiUser(request);
  if (user.role !== "admin") throwRefusal({ status: 403, message: "Acceso denegado" });
  return user;
}
