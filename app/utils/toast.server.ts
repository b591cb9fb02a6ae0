// Toasts travel with responses, one channel for every page: an action (or
// loader) attaches a toast with redirectWithToast or dataWithToast, and the
// root loader hands it to the one toaster in app/root.tsx. It works with and
// without JavaScript:
// - a redirect carries it in a flash cookie, read by the next page's root loader;
// - a page answered in the same response (a form posted without JavaScript)
//   gets it through the request context (http-server-patch.server.ts), since
//   the root loader of that response runs in the same request;
// - Remix's data requests (with JavaScript) get the flash cookie, which the
//   root loader's revalidation right after the action reads.
import { createCookieSessionStorage, data, redirect } from "@remix-run/node";
import { cookieSecurity } from "./client-ip.server";
import { getSessionSecret } from "./data-dir.server";
import { getEnv } from "./env.server";
import { currentRequestContext } from "./request-context.server";
import type { Toast } from "./toast";

let storage: ReturnType<typeof createStorage> | undefined;

function createStorage() {
  return createCookieSessionStorage<Record<string, never>, { toast: Toast }>({
    cookie: {
      name: "__toast",
      httpOnly: true,
      sameSite: "lax",
      path: "/",
      secure: getEnv().PUBLIC_URL.startsWith("https:"),
      secrets: [getSessionSecret()],
    },
  });
}

function toastStorage() {
  storage ??= createStorage();
  return storage;
}

async function flashCookie(toast: Toast) {
  const session = await toastStorage().getSession();
  session.flash("toast", toast);
  return toastStorage().commitSession(session, cookieSecurity());
}

/** Headers that deliver the toast with a non-redirect response. */
export async function toastHeaders(toast: Toast): Promise<Headers> {
  const headers = new Headers();
  const context = currentRequestContext();
  if (context?.rendersDocument) context.toasts.push(toast);
  else headers.append("Set-Cookie", await flashCookie(toast));
  return headers;
}

function mergeHeaders(init: ResponseInit | undefined, extra: Headers) {
  const headers = new Headers(init?.headers);
  extra.forEach((value, key) => headers.append(key, value));
  return headers;
}

export async function redirectWithToast(url: string, toast: Toast, init?: ResponseInit) {
  const headers = new Headers({ "Set-Cookie": await flashCookie(toast) });
  return redirect(url, { ...init, headers: mergeHeaders(init, headers) });
}

export async function dataWithToast<T>(payload: T, toast: Toast, init?: ResponseInit) {
  return data(payload, { ...init, headers: mergeHeaders(init, await toastHeaders(toast)) });
}

/** For the root loader: the toasts of this response, newest first, and the header that clears a flashed one. */
export async function takeToasts(request: Request): Promise<{ toasts: Toast[]; headers: Headers | undefined }> {
  const fromThisResponse = currentRequestContext()?.toasts.splice(0) ?? [];
  const session = await toastStorage().getSession(request.headers.get("Cookie"));
  const flashed = session.get("toast");
  const toasts = [...fromThisResponse.reverse(), ...(flashed ? [flashed] : [])];
  if (!flashed) return { toasts, headers: undefined };
  return { toasts, headers: new Headers({ "Set-Cookie": await toastStorage().commitSession(session, cookieSecurity()) }) };
}
