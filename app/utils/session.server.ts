// The signed session cookie: it holds only the signed-in user's id; every
// request reloads the user (app/utils/auth.server.ts).
import { createCookieSessionStorage } from "@remix-run/node";
import { getSessionSecret } from "./data-dir.server";
import { getEnv } from "./env.server";

type SessionData = { userId: string };

let storage: ReturnType<typeof createStorage> | undefined;

function createStorage() {
  return createCookieSessionStorage<SessionData>({
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
