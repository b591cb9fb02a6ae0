// A signed one-shot cookie for a page's own flash data (e.g. the booking
// receipt shown after the redirect). Separate from the session cookie so two
// loaders never overwrite each other's Set-Cookie.
import { createCookie } from "@remix-run/node";
import { cookieSecurity } from "./client-ip.server";
import { getSessionSecret } from "./data-dir.server";
import { getEnv } from "./env.server";

export function createFlashCookie<T>(name: string) {
  const cookie = () =>
    createCookie(name, {
      path: "/",
      httpOnly: true,
      sameSite: "lax",
      secure: getEnv().PUBLIC_URL.startsWith("https:"),
      secrets: [getSessionSecret()],
      maxAge: 300,
    });
  return {
    async set(value: T) {
      return cookie().serialize(value, cookieSecurity());
    },
    /** The value and the header that clears it, or nulls when there is none. */
    async pop(request: Request): Promise<{ value: T | null; clear: string | null }> {
      const value = (await cookie().parse(request.headers.get("Cookie"))) as T | null;
      if (!value) return { value: null, clear: null };
      return { value, clear: await cookie().serialize("", { maxAge: 0, ...cookieSecurity() }) };
    },
  };
}
