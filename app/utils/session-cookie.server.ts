// The signed session cookie: it holds only the id of a row of `sessions`
// (app/models/session.server.ts); every request loads the user through it
// (app/utils/auth.server.ts), so ending the row ends the session.
import { createCookieSessionStorage } from "@remix-run/node";
import { getSessionSecret } from "./data-dir.server";
import { getEnv } from "./env.server";

export const SESSION_MAX_AGE_S = 60 * 60 * 24 * 30;

type SessionData = { sessionId: string };

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
      maxAge: SESSION_MAX_AGE_S,
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
