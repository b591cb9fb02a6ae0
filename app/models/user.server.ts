import { and, count, eq, or, sql, type SQLWrapper } from "drizzle-orm";
import { cards, facilityBookings, notifications, users, type User } from "~/db/schema";
import { createId, hashPassword, verifyPassword } from "~/utils/crypto.server";
import { getDb, likePattern } from "~/utils/db.server";

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
  role?: User["role"];
  status?: User["status"];
  firstName?: string | null;
  lastName?: string | null;
  department?: string | null;
  phone?: string | null;
  notes?: string | null;
  unitNumber?: string | null;
  buildingName?: string | null;
} & PasswordOrHash;

/**
 * A password to hash here, or its hash made beforehand (hashing takes a
 * while: a write transaction must not wait for it, docs/architecture.md rule 7).
 */
export type PasswordOrHash = { password: string; passwordHash?: never } | { passwordHash: string; password?: never };

export async function createUser({ password, passwordHash, ...fields }: NewUser) {
  const [user] = await getDb()
    .insert(users)
    .values({
      id: createId(),
      ...fields,
      email: fields.email.toLowerCase(),
      passwordHash: passwordHash ?? (await hashPassword(password!)),
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

/** Stores a new password's hash (made with hashPassword beforehand). */
export async function setUserPasswordHash(id: string, passwordHash: string) {
  const [user] = await getDb()
    .update(users)
    .set({ passwordHash, updatedAt: new Date() })
    .where(eq(users.id, id))
    .returning({ id: users.id });
  return Boolean(user);
}

export async function getUserByEmail(email: string) {
  return getDb().query.users.findFirst({
    where: sql`lower(${users.email}) = lower(${email})`,
  });
}

export async function countActiveAdmins() {
  const [row] = await getDb()
    .select({ count: count() })
    .from(users)
    .where(and(eq(users.role, "admin"), eq(users.status, "active")));
  return row?.count ?? 0;
}

/** Username, name ("Marta García"), email or department contains the text (ASCII letters in any case). */
/** Users whose username, full name, email or department contains `text`. */
function matchingSearch(text: string) {
  const pattern = likePattern(text);
  const contains = (column: SQLWrapper) => sql`${column} LIKE ${pattern} ESCAPE '\\'`;
  return or(
    contains(users.username),
    contains(sql`trim(coalesce(${users.firstName}, '') || ' ' || coalesce(${users.lastName}, ''))`),
    contains(users.email),
    contains(sql`coalesce(${users.department}, '')`),
  );
}

const byUsername = sql`lower(${users.username})`;

export type UserListOptions = { search?: string; limit: number; offset: number };

/** Users by username, case ignored (the order of the unique index on lower(username)). */
export async function listUsers({ search, limit, offset }: UserListOptions): Promise<User[]> {
  const text = search?.trim();
  return getDb()
    .select()
    .from(users)
    .where(text ? matchingSearch(text) : undefined)
    .orderBy(byUsername)
    .limit(limit)
    .offset(offset);
}

export async function countUsers({ search }: Pick<UserListOptions, "search"> = {}) {
  const text = search?.trim();
  const [row] = await getDb()
    .select({ total: count() })
    .from(users)
    .where(text ? matchingSearch(text) : undefined);
  return row?.total ?? 0;
}

export type UserUpdate = Partial<Omit<NewUser, "password" | "passwordHash">> & { passwordHash?: string };

/** The updated user, or null when there is none with that id. A new password comes hashed (hashPassword). */
export async function updateUser(id: string, { passwordHash, ...fields }: UserUpdate) {
  const values: Partial<typeof users.$inferInsert> = { ...fields, updatedAt: new Date() };
  if (fields.email !== undefined) values.email = fields.email.toLowerCase();
  if (passwordHash !== undefined) values.passwordHash = passwordHash;
  const [user] = await getDb().update(users).set(values).where(eq(users.id, id)).returning();
  return user ?? null;
}

/** What goes or stays when the user is deleted (the admin is told before confirming). */
export async function countUserBelongings(id: string) {
  const db = getDb();
  const [[heldCards], [bookings], [userNotifications]] = await Promise.all([
    db.select({ total: count() }).from(cards).where(eq(cards.userId, id)),
    db.select({ total: count() }).from(facilityBookings).where(eq(facilityBookings.userId, id)),
    db.select({ total: count() }).from(notifications).where(eq(notifications.userId, id)),
  ]);
  return { cards: heldCards?.total ?? 0, bookings: bookings?.total ?? 0, notifications: userNotifications?.total ?? 0 };
}

/**
 * Deletes the user in one transaction: their cards first become unassigned
 * and inactive (so no door opens for them any more), then the row goes. The
 * foreign keys do the rest: API tokens, facility bookings and notifications
 * go with the user; access-log rows and incidents keep the username they
 * stored, with the user reference cleared. Null when there is no such user.
 */
export async function deleteUserReleasingCards(id: string) {
  return getDb().transaction(async (tx) => {
    const releasedCards = await tx
      .update(cards)
      .set({ userId: null, status: "inactive", updatedAt: new Date() })
      .where(eq(cards.userId, id))
      .returning({ id: cards.id, cardNumber: cards.cardNumber });
    const [user] = await tx.delete(users).where(eq(users.id, id)).returning();
    // No user, no cards of theirs either (the foreign key): nothing was changed.
    return user ? { user, releasedCards } : null;
  });
}
