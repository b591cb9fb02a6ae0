import { createCookieSessionStorage } from "@remix-run/node";
import { getSessionSecret } from "./data-dir.server";
import { getEnv } from "./env.server";

export type Toast = {
  id?: string;
  type: "success" | "error" | "warning" | "info";
  title: string;
  description?: string;
};

type SessionData = { userId: string };
type SessionFlashData = { toast: Toast };

let storage: ReturnType<typeof createStorage> | undefined;

function createStorage() {
  return createCookieSessionStorage<SessionData, SessionFlashData>({
    cookie: {
      name: "__session",
      httpOnly: true,
      sameSite: "lax",
      path: "/",
      secure: getEnv().PUBLIC_URL.startsWith("https:"),
      secrets: [getSessionSecret()],
      maxAge: 60 * 60 * 24 * 30,
    },
  });
}

export function getSessionStorage() {
  storage ??= createStorage();
  return storage;
}

export function getSession(request: Request) {
  return getSessionStorage().getSession(request.headers.get("Cookie"));
}
