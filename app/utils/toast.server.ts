// Toasts survive a redirect as a flash message in the session, so they work
// without JavaScript: the next page renders them on the server.
import { redirect } from "@remix-run/node";
import { getSession, getSessionStorage, type Toast } from "./session.server";

export async function redirectWithToast(request: Request, url: string, toast: Toast, init?: ResponseInit) {
  const session = await getSession(request);
  session.flash("toast", { id: crypto.randomUUID(), ...toast });
  const headers = new Headers(init?.headers);
  headers.append("Set-Cookie", await getSessionStorage().commitSession(session));
  return redirect(url, { ...init, headers });
}

/** Reads (and so consumes) the flashed toast; the header must be sent back. */
export async function popToast(request: Request) {
  const session = await getSession(request);
  const toast = session.get("toast") ?? null;
  const setCookie = toast ? await getSessionStorage().commitSession(session) : null;
  return { toast, setCookie };
}
