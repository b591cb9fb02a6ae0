// A signed-in user's own profile (SPEC §3 User profile) and password, for
// the portal and its JSON API.
import { getUserById, setUserPasswordHash, updateUserProfile, type User } from "~/models/user.server";
import { hashPassword, verifyPassword } from "~/utils/crypto.server";
import type { PasswordChangeInput, ProfileInput } from "~/schemas/profile";
import { isUniqueViolation } from "~/utils/db.server";
import { getEnv } from "~/utils/env.server";
import { endSessionsOfUser } from "~/services/users.server";
import { checkRateLimit, clearRateLimit } from "./rate-limits.server";
import { refuse, type Result } from "~/utils/refusal.server";
import { audited, changedFields } from "./audit.server";

export const EMAIL_TAKEN = "Ese email ya está en uso";
export const WRONG_CURRENT_PASSWORD = "La contraseña actual no es correcta";

/** SPEC §3 user profile (never the password hash). */
export function toProfileJson(user: User) {
  return {
    _id: user.id,
    username: user.username,
    firstName: user.firstName,
    lastName: user.lastName,
    email: user.email,
    phone: user.phone,
    unitNumber: user.unitNumber,
    buildingName: user.buildingName ?? getEnv().BUILDING_NAME,
    avatar: user.avatar,
    role: user.role,
  };
}
export type ProfileJson = ReturnType<typeof toProfileJson>;

export async function updateProfile(user: Pick<User, "id">, input: ProfileInput): Promise<Result<{ profile: ProfileJson }>> {
  try {
    return await audited(async (audit): Promise<Result<{ profile: ProfileJson }>> => {
      const before = await getUserById(user.id);
      if (!before) return refuse(404, "Usuario no encontrado");
      const fields = { firstName: input.firstName, lastName: input.lastName || null, email: input.email.toLowerCase(), phone: input.phone || null };
      const diff = changedFields(before, fields, ["firstName", "lastName", "email", "phone"] as const);
      if (diff.changed.length === 0) return { ok: true, profile: toProfileJson(before) };
      const updated = await updateUserProfile(user.id, fields);
      if (!updated) return refuse(404, "Usuario no encontrado");
      audit({ action: "user.profile", entityType: "user", entityId: user.id, summary: "actualizó su perfil", before: diff.before, after: diff.after });
      return { ok: true, profile: toProfileJson(updated) };
    });
  } catch (error) {
    if (isUniqueViolation(error, "users_email_unique") || isUniqueViolation(error, "users.email")) {
      return refuse(409, EMAIL_TAKEN, { field: "email" });
    }
    throw error;
  }
}

/**
 * Changes the user's own password: the current one must be right (10 wrong
 * tries in 15 minutes lock the change for a while). Every session and API
 * token of the old password ends, except the browser session that made the
 * change (`keepSessionId`).
 */
export async function changeOwnPassword(
  user: Pick<User, "id" | "passwordHash">,
  input: PasswordChangeInput,
  { keepSessionId }: { keepSessionId?: string | null } = {},
): Promise<Result> {
  const key = `user:${user.id}`;
  if (!(await verifyPassword(input.currentPassword, user.passwordHash))) {
    const limited = await checkRateLimit("passwordChange", [key]);
    return limited ?? refuse(400, WRONG_CURRENT_PASSWORD, { field: "currentPassword" });
  }
  const limited = await checkRateLimit("passwordChange", [key]);
  if (limited) return limited;
  const passwordHash = await hashPassword(input.newPassword);
  await audited(async (audit) => {
    await setUserPasswordHash(user.id, passwordHash);
    await endSessionsOfUser(user.id, { keepSessionId });
    await clearRateLimit("passwordChange", [key]);
    audit({
      action: "user.password",
      entityType: "user",
      entityId: user.id,
      summary: "cambió su contraseña",
      before: { password: "anterior" },
      after: { password: "nueva" },
    });
  });
  return { ok: true };
}
