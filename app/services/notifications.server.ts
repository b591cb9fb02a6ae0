// What residents are told in their portal (SPEC §3 Notification, §4): an
// admin changed their incident's status, cancelled their booking, assigned
// them a card; one of their cards expires within a week. Any service that
// does one of those calls notifyUser.
import { insertNotification, type NewNotification, type Notification } from "~/models/notification.server";

export type NotificationType = "incident" | "booking" | "card" | "info";

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
