import { createCookie } from "@remix-run/node";
import { cookieSecurity } from "./client-ip.server";
import { isTheme, type ThemePreference } from "./theme";

const themeCookie = createCookie("theme", {
  path: "/",
  sameSite: "lax",
  httpOnly: true,
  maxAge: 60 * 60 * 24 * 365,
});

export async function getTheme(request: Request): Promise<ThemePreference> {
  const value = await themeCookie.parse(request.headers.get("Cookie"));
  return isTheme(value) ? value : "system";
}

export function serializeTheme(theme: ThemePreference) {
  return themeCookie.serialize(theme === "system" ? "" : theme, { ...(theme === "system" ? { maxAge: 0 } : {}), ...cookieSecurity() });
}
