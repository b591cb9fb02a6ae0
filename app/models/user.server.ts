import { eq, sql } from "drizzle-orm";
import { users, type User } from "~/db/schema";
import { createId, hashPassword, verifyPassword } from "~/utils/crypto.server";
import { getDb } from "~/utils/db.server";

export type { User };

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

export async function updateUserStatus(id: string, status: User["status"]) {
  const [user] = await getDb().update(users).set({ status, updatedAt: new Date() }).where(eq(users.id, id)).returning();
  return user ?? null;
}

export type ProfileFields = Pick<User, "firstName" | "lastName" | "email" | "phone">;

/** The updated user; a taken email throws a unique violation on users_email_unique. */
export async function updateUserProfile(id: string, fields: ProfileFields) {
  const [user] = await getDb()
    .update(users)
    .set({ ...fields, email: fields.email.toLowerCase(), updatedAt: new Date() })
    .where(eq(users.id, id))
    .returning();
  return user ?? null;
}

export async function updateUserPassword(id: string, password: string) {
  const [user] = await getDb()
    .update(users)
    .set({ passwordHash: await hashPassword(password), updatedAt: new Date() })
    .where(eq(users.id, id))
    .returning({ id: users.id });
  return Boolean(user);
}
