// A user's notifications (SPEC §3 Notification), newest first. Every query
// is scoped to its owner.
import { and, desc, eq, sql } from "drizzle-orm";
import { notifications } from "~/db/schema";
import { createId } from "~/utils/crypto.server";
import { getDb } from "~/utils/db.server";

export type Notification = typeof notifications.$inferSelect;

/** `dedupeKey`: a notification that must exist once; a second one with the same key is not stored. */
export type NewNotification = { type: string; title: string; message: string; dedupeKey?: string | null };

/** The stored notification; null when one with the same dedupe key exists already. */
export async function insertNotification(userId: string, input: NewNotification, now = new Date()) {
  const [row] = await getDb()
    .insert(notifications)
    .values({ id: createId(), userId, ...input, dedupeKey: input.dedupeKey ?? null, createdAt: now })
    .onConflictDoNothing()
    .returning();
  return row ?? null;
}

export async function listNotificationsOfUser(userId: string, limit = 50) {
  return getDb()
    .select()
    .from(notifications)
    .where(eq(notifications.userId, userId))
    .orderBy(desc(notifications.createdAt), desc(notifications.id))
    .limit(limit);
}

export async function countUnreadNotifications(userId: string) {
  const [row] = await getDb()
    .select({ count: sql<number>`count(*)` })
    .from(notifications)
    .where(and(eq(notifications.userId, userId), eq(notifications.read, false)));
  return Number(row?.count ?? 0);
}

/** Marks every unread notification of the user read; answers how many. */
export async function markAllNotificationsRead(userId: string) {
  const updated = await getDb()
    .update(notifications)
    .set({ read: true })
    .where(and(eq(notifications.userId, userId), eq(notifications.read, false)))
    .returning({ id: notifications.id });
  return updated.length;
}
