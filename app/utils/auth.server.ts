// Who is asking. Pages use the cookie session; /api/* uses bearer tokens.
// Every loader and action of a protected route starts with one of these guards.
import { redirect } from "@remix-run/node";
import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { getUserByApiToken } from "~/models/api-token.server";
import { getUserById, verifyLogin, type User } from "~/models/user.server";
import { assertSameOrigin } from "./csrf.server";
import { getSession, getSessionStorage } from "./session.server";

export const LOGIN_FAILED = "Usuario o contraseña incorrectos";
export const LOGIN_INACTIVE = "Tu cuenta no está activa. Contacta con la administración.";

export class LoginError extends Error {}

export const authenticator = new Authenticator<User>();

authenticator.use(
  new FormStrategy(async ({ form }) => {
    const result = await verifyLogin(String(form.get("username") ?? ""), String(form.get("password") ?? ""));
    if (!result.ok) throw new LoginError(result.reason === "inactive" ? LOGIN_INACTIVE : LOGIN_FAILED);
    return result.user;
  }),
  "form",
);

export function homeFor(user: Pick<User, "role">) {
  return user.role === "admin" ? "/admin" : "/";
}

/** Only same-site paths: never an open redirect to another host. */
export function safeRedirect(to: FormDataEntryValue | string | null | undefined, fallback: string) {
  if (!to || typeof to !== "string") return fallback;
  if (!to.startsWith("/") || to.startsWith("//") || to.startsWith("/\\")) return fallback;
  return to;
}

export async function createUserSession(request: Request, user: User, redirectTo: string) {
  const session = await getSession(request);
  session.set("userId", user.id);
  session.flash("toast", { id: crypto.randomUUID(), type: "success", title: `Bienvenido, ${user.username}` });
  return redirect(redirectTo, {
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
  assertSameOrigin(request);
  const user = await getOptionalUser(request);
  if (!user) throw loginRedirect(request);
  return user;
}

export async function requireAdmin(request: Request): Promise<User> {
  const user = await requireUser(request);
  if (user.role !== "admin") throw redirect("/");
  return user;
}

/** Throws the API's JSON error shape: `{success: false, error: {message}}`. */
export function apiError(status: number, message: string): never {
  throw Response.json({ success: false, error: { message } }, { status });
}

export async function requireApiUser(request: Request): Promise<User> {
  const header = request.headers.get("authorization") ?? "";
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) apiError(401, "No autenticado");
  const user = await getUserByApiToken(match[1]!);
  if (!user) apiError(401, "Token inválido o expirado");
  return user;
}

export async function requireApiAdmin(request: Request): Promise<User> {
  const user = await requireApiUser(request);
  if (user.role !== "admin") apiError(403, "Acceso denegado");
  return user;
}
