// Browser sessions (one row per signed-in browser). The cookie holds the
// session's id; the table keeps only its SHA-256 (`sessions.id`), so a copy of
// the database (a backup) holds no id that a cookie could carry.
import { and, eq, gt, lte, ne, sql } from "drizzle-orm";
import { sessions, users } from "~/db/schema";
import { randomToken, sha256 } from "~/utils/crypto.server";
import { getDb, preparedQuery } from "~/utils/db.server";

/** What the table keeps of a session's id. */
export function storedSessionId(id: string) {
  return sha256(id);
}

/** Opens a session; answers its id (for the cookie), which is never stored. */
export async function insertSession(userId: string, expiresAt: Date) {
  const id = randomToken(32);
  await getDb().insert(sessions).values({ id: storedSessionId(id), userId, expiresAt });
  return id;
}

const userOfSession = preparedQuery("the session's user", (db) =>
  db
    .select({ user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.id, sql.placeholder("id")), gt(sessions.expiresAt, sql.placeholder("now"))))
    .limit(1)
    .prepare(),
);

/** The user of a live session, or null (no such session, or expired). */
export async function getUserOfSession(id: string, now = new Date()) {
  // A placeholder's value goes to the driver as it is: the column's epoch milliseconds.
  const [row] = await userOfSession().all({ id: storedSessionId(id), now: now.getTime() });
  return row?.user ?? null;
}

export async function deleteSession(id: string) {
  await getDb().delete(sessions).where(eq(sessions.id, storedSessionId(id)));
}

/** Ends every session of the user, or every other one when `keepId` is given. */
export async function deleteSessionsOfUser(userId: string, keepId?: string) {
  await getDb()
    .delete(sessions)
    .where(keepId ? and(eq(sessions.userId, userId), ne(sessions.id, storedSessionId(keepId))) : eq(sessions.userId, userId));
}

export async function purgeExpiredSessions(now = new Date()) {
  await getDb().delete(sessions).where(lte(sessions.expiresAt, now));
}
