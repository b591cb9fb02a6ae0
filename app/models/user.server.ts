import { eq, sql } from "drizzle-orm";
import { users, type User } from "~/db/schema";
import { createId, hashPassword, verifyPassword } from "~/utils/crypto.server";
import { getDb } from "~/utils/db.server";
import { notifyAccessChange } from "~/access/notify.server";
import { revokeApiTokensOfUser } from "./api-token.server";

export type { User };

/** What the pages and the API may show of a user (never the hash). */
export type PublicUser = Omit<User, "passwordHash">;

export function toPublicUser(user: User): PublicUser {
  const { passwordHash: _hash, ...rest } = user;
  return rest;
}

export async function getUserById(id: string) {
  return getDb().query.users.findFirst({ where: eq(users.id, id) });
}

export async function getUserByUsername(username: string) {
  return getDb().query.users.findFirst({
    where: sql`lower(${users.username}) = lower(${username})`,
  });
}

export async function countAdmins() {
  const [row] = await getDb()
    .select({ count: sql<number>`count(*)` })
    .from(users)
    .where(eq(users.role, "admin"));
  return Number(row?.count ?? 0);
}

export type NewUser = {
  username: string;
  email: string;
  password: string;
  role?: User["role"];
  status?: User["status"];
  firstName?: string | null;
  lastName?: string | null;
  department?: string | null;
  phone?: string | null;
  notes?: string | null;
  unitNumber?: string | null;
  buildingName?: string | null;
};

export async function createUser({ password, ...fields }: NewUser) {
  const [user] = await getDb()
    .insert(users)
    .values({
      id: createId(),
      ...fields,
      email: fields.email.toLowerCase(),
      passwordHash: await hashPassword(password),
    })
    .returning();
  return user!;
}

export type LoginResult =
  | { ok: true; user: User }
  | { ok: false; reason: "invalid" | "inactive" };

// Dummy hash so an unknown username costs as much time as a wrong password.
let dummyHash: Promise<string> | undefined;

export async function verifyLogin(username: string, password: string): Promise<LoginResult> {
  const user = await getUserByUsername(username.trim());
  if (!user) {
    dummyHash ??= hashPassword("not-a-real-password");
    await verifyPassword(password, await dummyHash);
    return { ok: false, reason: "invalid" };
  }
  if (!(await verifyPassword(password, user.passwordHash))) return { ok: false, reason: "invalid" };
  if (user.status !== "active") return { ok: false, reason: "inactive" };
  return { ok: true, user };
}

/**
 * Changing a user away from active also ends their API sessions; the doors
 * their cards open are told, so the offline lists drop (or regain) them.
 */
export async function setUserStatus(id: string, status: User["status"]) {
  await getDb().update(users).set({ status, updatedAt: new Date() }).where(eq(users.id, id));
  if (status !== "active") await revokeApiTokensOfUser(id);
  await notifyAccessChange({ userIds: [id] });
}
