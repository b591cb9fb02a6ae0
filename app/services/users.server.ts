// Users as the admin and the API see them. A status change reaches the doors:
// an inactive or suspended user's cards are refused, and the offline lists of
// the doors their cards open are republished.
import { notifyAccessChange } from "~/access/notify.server";
import { revokeApiTokensOfUser } from "~/models/api-token.server";
import { deleteSessionsOfUser } from "~/models/session.server";
import { updateUserStatus, type User } from "~/models/user.server";

export type { User };
import { refuse, type Result } from "~/utils/refusal.server";

/** What the pages and the API may show of a user (never the hash). */
export type PublicUser = Omit<User, "passwordHash">;

export function toPublicUser(user: User): PublicUser {
  const { passwordHash: _hash, ...rest } = user;
  return rest;
}

/**
 * Ends the user's browser sessions and API tokens (an inactivation, a new
 * password); `keepSessionId` keeps the browser that made the change signed in.
 */
export async function endSessionsOfUser(userId: string, { keepSessionId }: { keepSessionId?: string | null } = {}) {
  await deleteSessionsOfUser(userId, keepSessionId ?? undefined);
  await revokeApiTokensOfUser(userId);
}

/** Changing a user away from active also ends their sessions. */
export async function changeUserStatus(id: string, status: User["status"]): Promise<Result<{ user: User }>> {
  const user = await updateUserStatus(id, status);
  if (!user) return refuse(404, "Usuario no encontrado");
  if (status !== "active") await endSessionsOfUser(id);
  await notifyAccessChange({ userIds: [id] });
  return { ok: true, user };
}
