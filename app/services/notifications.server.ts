// What residents are told in their portal (SPEC §3 Notification, §4): an
// admin changed their incident's status, cancelled their booking, assigned
// them a card; one of their cards expires within a week. Any service that
// does one of those calls notifyUser.
import { listHeldCardsExpiringBetween } from "~/models/card.server";
import {
  countUnreadNotifications,
  insertNotification,
  listNotificationsOfUser,
  markAllNotificationsRead,
  type NewNotification,
  type Notification,
} from "~/models/notification.server";
import { formatDate } from "~/utils/dates";
import { memoInRequest } from "~/utils/request-context.server";

export type NotificationType = "incident" | "booking" | "card" | "info";

/** Stores the notification; null when one with the same `dedupeKey` was sent already. */
export async function notifyUser(userId: string, notification: NewNotification & { type: NotificationType }) {
  return insertNotification(userId, notification);
}

/** SPEC §3 notification, as the portal and its API see it. */
export function toNotificationJson(notification: Notification) {
  return {
    _id: notification.id,
    type: notification.type,
    title: notification.title,
    message: notification.message,
    read: notification.read,
    createdAt: notification.createdAt.toISOString(),
  };
}
export type NotificationJson = ReturnType<typeof toNotificationJson>;

/** The user's notifications, newest first, and how many are unread. */
export async function getNotifications(userId: string) {
  const [list, unread] = await Promise.all([listNotificationsOfUser(userId), countUnread(userId)]);
  return { notifications: list.map(toNotificationJson), unread };
}

/** How many of the user's notifications are unread: counted once per page load (the root loader's badge, the portal's list). */
export async function countUnread(userId: string) {
  return memoInRequest(`unread-notifications:${userId}`, () => countUnreadNotifications(userId));
}

/** SPEC §4: every unread notification of the user becomes read; answers how many. */
export async function markAllRead(userId: string) {
  return markAllNotificationsRead(userId);
}

/** SPEC §9: a card's holder is warned this long before it expires. */
export const CARD_EXPIRY_WARNING_MS = 7 * 24 * 3600_000;

const DAY_MS = 24 * 3600_000;

/**
 * Warns the holder of every active card that expires within the next 7
 * days, once per card and expiry date (a new expiry date warns again). Run
 * periodically (app/boot.server.ts); any number of processes may run
 * it at once, since the notification's dedupe key is unique in the database.
 * Answers how many warnings it sent.
 */
export async function sendCardExpiryWarnings(now = new Date()) {
  const expiring = await listHeldCardsExpiringBetween(now, new Date(now.getTime() + CARD_EXPIRY_WARNING_MS));
  let sent = 0;
  for (const card of expiring) {
    if (!card.userId || !card.expiresAt) continue;
    const days = Math.max(1, Math.ceil((card.expiresAt.getTime() - now.getTime()) / DAY_MS));
    const name = card.alias ? `${card.alias} (${card.cardNumber})` : card.cardNumber;
    const stored = await notifyUser(card.userId, {
      type: "card",
      title: "Tarjeta próxima a expirar",
      message: `Tu tarjeta ${name} expira el ${formatDate(card.expiresAt)} (en ${days === 1 ? "1 día" : `${days} días`}). Contacta con la administración para renovarla.`,
      dedupeKey: `card-expiry:${card.id}:${card.expiresAt.getTime()}`,
    });
    if (stored) sent += 1;
  }
  return sent;
}
