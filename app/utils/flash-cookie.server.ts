// A signed cookie for a page's own short-lived data (e.g. the booking receipt
// shown after the redirect): set, read, or read once (pop). Separate from the
// session cookie so two loaders never overwrite each other's Set-Cookie.
import { createCookie } from "@remix-run/node";
import { cookieSecurity } from "./client-ip.server";
import { getSessionSecret } from "./data-dir.server";
import { getEnv } from "./env.server";

export function createFlashCookie<T>(name: string, { maxAgeS = 300 }: { maxAgeS?: number } = {}) {
  const cookie = () =>
    createCookie(name, {
      path: "/",
      httpOnly: true,
      sameSite: "lax",
      secure: getEnv().PUBLIC_URL.startsWith("https:"),
      secrets: [getSessionSecret()],
      maxAge: maxAgeS,
    });
  return {
    async set(value: T) {
      return cookie().serialize(value, cookieSecurity());
    },
    async read(request: Request): Promise<T | null> {
      return ((await cookie().parse(request.headers.get("Cookie"))) as T | null) ?? null;
    },
    /** The value and the header that clears it, or nulls when there is none. */
    async pop(request: Request): Promise<{ value: T | null; clear: string | null }> {
      const value = (await cookie().parse(request.headers.get("Cookie"))) as T | null;
      if (!value) return { value: null, clear: null };
      return { value, clear: await cookie().serialize("", { maxAge: 0, ...cookieSecurity() }) };
    },
  };
}
