// Users and their cards as the admin manages them, shared by /admin/users and
// /api/users: the rules (unique username and email, admins always active,
// nobody inactivates or deletes an admin or themself), their refusals, the
// JSON shapes, and what each change does to the doors:
// - a user who is not active opens nothing (their cards are denied with
//   user_inactive or user_suspended) and the offline lists of the doors their
//   cards open are republished; their API tokens end;
// - a deleted user's cards become unassigned and inactive, and their doors'
//   offline lists are republished;
// - a card given, edited or taken away is announced the same way.
import { notifyAccessChange } from "~/access/notify.server";
import { revokeApiTokensOfUser } from "~/models/api-token.server";
import * as cardModel from "~/models/card.server";
import { listBookingDoorIdsForUsers } from "~/models/facility-booking.server";
import { deleteSessionsOfUser } from "~/models/session.server";
import * as userModel from "~/models/user.server";
import type { User } from "~/models/user.server";
import { CARD_TYPE_LABELS } from "~/schemas/card";
import { USER_ROLE_LABELS, USER_STATUS_LABELS, type CardAssignmentInput, type NewUserInput, type UserCardUpdateInput, type UserInput, type UserStatus } from "~/schemas/user";
import { canonicalCardId } from "~/utils/card-number";
import { hashPassword } from "~/utils/crypto.server";
import { endOfMadridDay } from "~/utils/dates";
import { isUniqueViolation } from "~/utils/db.server";
import { pageWindow } from "~/utils/paging";
import { refuse, type Refusal, type Result } from "~/utils/refusal.server";
import { existingGroupIds, setGroupsOfUser as setGroupsOfUserRow } from "~/models/access-group.server";
import { defaultGroupIds, GROUP_REFUSALS, groupIdsOfUsers, setGroupsOfUser } from "./access-groups.server";
import { audited, changedFields, type AuditFields } from "./audit.server";
import { toCardJson, type CardJson } from "./cards.server";
import { notifyUser } from "./notifications.server";

export type { User };

/** Who is making the change: the signed-in admin (and their browser session, which a change of their own password keeps). */
export type Actor = Pick<User, "id"> & { sessionId?: string | null };

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

/** SPEC §3 user, as the API and the admin screen see it (fields listed one by one: never the hash). */
export function toUserJson(user: User & { activeCardCount?: number; accessGroups?: string[] }) {
  return {
    _id: user.id,
    username: user.username,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    department: user.department,
    phone: user.phone,
    role: user.role,
    status: user.status,
    notes: user.notes,
    unitNumber: user.unitNumber,
    activeCardCount: user.activeCardCount ?? 0,
    accessGroups: user.accessGroups ?? [],
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
  };
}
export type UserJson = ReturnType<typeof toUserJson>;

/** "Marta García", or the username when there is no name. */
export function displayName(user: Pick<User, "username" | "firstName" | "lastName">) {
  return [user.firstName, user.lastName].filter(Boolean).join(" ").trim() || user.username;
}

/** Why a change to a user or their cards was refused, for the screen and the API alike. */
export const USER_REFUSALS = {
  not_found: refuse(404, "Usuario no encontrado"),
  admin_not_active: refuse(409, "Un administrador no puede estar inactivo ni suspendido", { field: "status" }),
  inactivate_admin: refuse(403, "No se puede inactivar a un administrador"),
  delete_admin: refuse(403, "No se puede eliminar a un administrador"),
  own_status: refuse(403, "No puedes cambiar el estado de tu propia cuenta"),
  delete_self: refuse(403, "No puedes eliminar tu propia cuenta"),
  own_role: refuse(403, "No puedes quitarte el rol de administrador", { field: "role" }),
  card_not_found: refuse(404, "La tarjeta no está asignada a este usuario"),
  card_number: refuse(400, "El número de tarjeta no es válido (hexadecimal, p. ej. 04A1B2C3)", { field: "cardNumber" }),
  card_suspended: refuse(409, "La tarjeta está suspendida: no se puede asignar", { field: "cardNumber" }),
} satisfies Record<string, Refusal>;

const usernameTaken = (username: string) => refuse(409, `Ya existe un usuario con el nombre de usuario «${username}»`, { field: "username" });
const emailTaken = (email: string) => refuse(409, `Ya existe un usuario con el email «${email}»`, { field: "email" });

export type UserListQuery = { search: string; page: number; limit: number };

/**
 * One page of users, by username, with the pagination SPEC §3 describes.
 * With `clamp` (the screen), a page past the end shows the last one.
 */
export async function listUsers({ search, page, limit }: UserListQuery, { clamp = false } = {}) {
  const total = await userModel.countUsers({ search });
  const window = pageWindow(total, { page, limit, clamp });
  const users = await userModel.listUsers({ search, limit, offset: window.offset });
  return { users: await withCardCounts(users), pagination: { page: window.page, limit, total, pages: window.pages } };
}

/** The users as JSON, each with their active card count and access groups (one query each for all). */
async function withCardCounts(users: User[]) {
  const ids = users.map((user) => user.id);
  const counts = await cardModel.countActiveCardsOfUsers(ids);
  const groups = await groupIdsOfUsers(ids);
  return users.map((user) => toUserJson({ ...user, activeCardCount: counts.get(user.id) ?? 0, accessGroups: groups.get(user.id) ?? [] }));
}

export async function getUserJson(id: string): Promise<Result<{ user: UserJson }>> {
  const user = await userModel.getUserById(id);
  if (!user) return USER_REFUSALS.not_found;
  const [json] = await withCardCounts([user]);
  return { ok: true, user: json! };
}

/** The user and the cards they hold (the details modal). */
export async function getUserDetail(id: string): Promise<Result<{ user: UserJson; cards: CardJson[] }>> {
  const user = await userModel.getUserById(id);
  if (!user) return USER_REFUSALS.not_found;
  const cards = (await cardModel.listCardsOfUser(id)).map(toCardJson);
  const activeCardCount = cards.filter((card) => card.status === "active").length;
  const accessGroups = (await groupIdsOfUsers([id])).get(id) ?? [];
  return { ok: true, user: toUserJson({ ...user, activeCardCount, accessGroups }), cards };
}
export type UserDetail = Extract<Awaited<ReturnType<typeof getUserDetail>>, { ok: true }>;

/** The stored profile of a form's values: a unit number is a resident's only. */
function profileOf(input: Omit<NewUserInput, "password">) {
  return {
    username: input.username,
    email: input.email,
    firstName: input.firstName ?? null,
    lastName: input.lastName ?? null,
    department: input.department ?? null,
    phone: input.phone ?? null,
    role: input.role,
    status: input.status,
    notes: input.notes ?? null,
    unitNumber: input.role === "user" ? (input.unitNumber ?? null) : null,
  };
}

/** Username and email are unique ignoring case; the refusal names the clash. */
async function findNameClash(input: Pick<UserInput, "username" | "email">, exceptId?: string): Promise<Refusal | null> {
  const sameUsername = await userModel.getUserByUsername(input.username);
  if (sameUsername && sameUsername.id !== exceptId) return usernameTaken(input.username);
  const sameEmail = await userModel.getUserByEmail(input.email);
  if (sameEmail && sameEmail.id !== exceptId) return emailTaken(input.email);
  return null;
}

/** A unique index refused the write (a clash that appeared after the check). */
function clashOf(error: unknown, input: Pick<UserInput, "username" | "email">): Refusal {
  if (isUniqueViolation(error, "users_username_unique")) return usernameTaken(input.username);
  if (isUniqueViolation(error, "users_email_unique")) return emailTaken(input.email);
  throw error;
}

/** The fields of a user an event keeps (never the password hash). */
const AUDITED_USER_FIELDS = ["username", "email", "firstName", "lastName", "department", "phone", "role", "status", "notes", "unitNumber"] as const;

function userFieldsOf(user: User): AuditFields {
  return Object.fromEntries(AUDITED_USER_FIELDS.map((key) => [key, user[key]]));
}

/**
 * A new user; their access groups are the ones given, or for a resident
 * without any given (the API) the default group of the settings.
 */
export async function createUser(input: NewUserInput): Promise<Result<{ user: UserJson }>> {
  if (input.role === "admin" && input.status !== "active") return USER_REFUSALS.admin_not_active;
  const clash = await findNameClash(input);
  if (clash) return clash;
  const groupIds = input.accessGroups ?? (input.role === "user" ? await defaultGroupIds() : []);
  if ((await existingGroupIds(groupIds)).length !== new Set(groupIds).size) return GROUP_REFUSALS.unknown_member_group;
  const passwordHash = await hashPassword(input.password);
  let user: User;
  try {
    user = await audited(async (audit) => {
      const created = await userModel.createUser({ ...profileOf(input), passwordHash });
      // Their groups join in the same write and the same event.
      if (groupIds.length > 0) await setGroupsOfUserRow(created.id, groupIds);
      audit({
        action: "user.create",
        entityType: "user",
        entityId: created.id,
        summary: `creó el usuario ${created.username} (${USER_ROLE_LABELS[created.role].toLowerCase()})`,
        after: { ...userFieldsOf(created), ...(groupIds.length > 0 ? { accessGroups: groupIds } : {}) },
      });
      return created;
    });
  } catch (error) {
    return clashOf(error, input);
  }
  if (groupIds.length > 0) await notifyAccessChange({ groupIds });
  return getUserJson(user.id);
}

/**
 * The admin's edit of a user (screen and API). A missing password or status
 * keeps the current one; a new one ends the user's sessions and API tokens
 * (an admin changing their own keeps the browser they are using). An admin
 * stays active, and cannot take their own admin role. Values equal to the
 * stored ones change nothing.
 */
export async function updateUser(id: string, edit: UserInput, actor: Actor): Promise<Result<{ user: UserJson }>> {
  if (edit.accessGroups && (await existingGroupIds(edit.accessGroups)).length !== new Set(edit.accessGroups).size) {
    return GROUP_REFUSALS.unknown_member_group;
  }
  // Hashed before the write transaction: it takes a while.
  const passwordHash = edit.password === undefined ? undefined : await hashPassword(edit.password);
  let outcome: Result<{ statusChanged: boolean }>;
  try {
    outcome = await audited(async (audit): Promise<Result<{ statusChanged: boolean }>> => {
      const existing = await userModel.getUserById(id);
      if (!existing) return USER_REFUSALS.not_found;
      const input = { ...edit, status: edit.status ?? existing.status };
      if (actor.id === id && input.role !== "admin") return USER_REFUSALS.own_role;
      if (actor.id === id && input.status !== existing.status) return USER_REFUSALS.own_status;
      // Whatever the form sends, an admin is not inactivated (not even while being made a resident).
      if ((existing.role === "admin" || input.role === "admin") && input.status !== "active") return USER_REFUSALS.admin_not_active;
      const clash = await findNameClash(input, id);
      if (clash) return clash;
      const profile = profileOf(input);
      const diff = changedFields(userFieldsOf(existing), profile, AUDITED_USER_FIELDS);
      if (diff.changed.length === 0 && passwordHash === undefined) return { ok: true, statusChanged: false };
      const updated = await userModel.updateUser(id, { ...profile, passwordHash });
      if (!updated) return USER_REFUSALS.not_found;
      if (updated.status !== "active" || passwordHash !== undefined) {
        await endSessionsOfUser(id, { keepSessionId: actor.id === id ? actor.sessionId : null });
      }
      const changed = passwordHash === undefined ? diff.changed : [...diff.changed, "password"];
      const only = changed.length === 1 ? changed[0] : null;
      const passwordField = passwordHash === undefined ? {} : { password: "nueva" };
      audit({
        action: only === "status" ? "user.status" : only === "role" ? "user.role" : only === "password" ? "user.password_reset" : "user.update",
        entityType: "user",
        entityId: id,
        summary:
          only === "status"
            ? `cambió el estado del usuario ${updated.username} a ${USER_STATUS_LABELS[updated.status].toLowerCase()}`
            : only === "role"
              ? `cambió el rol del usuario ${updated.username} a ${USER_ROLE_LABELS[updated.role].toLowerCase()}`
              : only === "password"
                ? `restableció la contraseña del usuario ${updated.username}`
                : `editó el usuario ${updated.username}`,
        before: { ...diff.before, ...passwordField },
        after: { ...diff.after, ...passwordField },
      });
      return { ok: true, statusChanged: updated.status !== existing.status };
    });
  } catch (error) {
    return clashOf(error, edit);
  }
  if (!outcome.ok) return outcome;
  if (outcome.statusChanged) await notifyAccessChange({ userIds: [id] });
  if (edit.accessGroups) {
    const joined = await setGroupsOfUser(id, edit.accessGroups);
    if (!joined.ok) return joined;
  }
  return getUserJson(id);
}

/**
 * Inactivate, activate (or, from the forms and the API, suspend) a user.
 * SPEC: an admin account is never inactivated; nobody changes their own
 * status. Away from active, the user's sessions and API tokens end and their doors hear
 * of it; back to active, their cards work again.
 */
export async function changeUserStatus(id: string, status: UserStatus, actor: Actor): Promise<Result<{ user: User; changed: boolean }>> {
  const result = await audited(async (audit): Promise<Result<{ user: User; changed: boolean }>> => {
    const existing = await userModel.getUserById(id);
    if (!existing) return USER_REFUSALS.not_found;
    if (actor.id === id) return USER_REFUSALS.own_status;
    if (existing.role === "admin" && status !== "active") return USER_REFUSALS.inactivate_admin;
    if (existing.status === status) return { ok: true, user: existing, changed: false };
    const user = await userModel.updateUserStatus(id, status);
    if (!user) return USER_REFUSALS.not_found;
    if (status !== "active") await endSessionsOfUser(id);
    audit({
      action: "user.status",
      entityType: "user",
      entityId: id,
      summary: `cambió el estado del usuario ${user.username} a ${USER_STATUS_LABELS[status].toLowerCase()}`,
      before: { status: existing.status },
      after: { status },
    });
    return { ok: true, user, changed: true };
  });
  if (result.ok && result.changed) await notifyAccessChange({ userIds: [id] });
  return result;
}

/** What deleting the user takes with it, for the confirmation. */
export async function describeUserDeletion(id: string) {
  return userModel.countUserBelongings(id);
}

/**
 * SPEC: an admin account is never deleted, and nobody deletes themself. The
 * user's cards become unassigned and inactive and their doors hear of it;
 * their API tokens, bookings and notifications go with them; the access log
 * and incidents keep their username; their browser sessions go with the row.
 */
export async function deleteUser(id: string, actor: Actor): Promise<Result<{ user: UserJson; releasedCards: string[] }>> {
  // Their access groups' doors carried their cards too.
  const groupIds = (await groupIdsOfUsers([id])).get(id) ?? [];
  const result = await audited(async (audit) => {
    const existing = await userModel.getUserById(id);
    if (!existing) return USER_REFUSALS.not_found;
    if (actor.id === id) return USER_REFUSALS.delete_self;
    if (existing.role === "admin") return USER_REFUSALS.delete_admin;
    // Their bookings go with them: the doors those opened must hear of it too.
    const bookingDoorIds = await listBookingDoorIdsForUsers([id]);
    const deleted = await userModel.deleteUserReleasingCards(id);
    if (!deleted) return USER_REFUSALS.not_found;
    audit({
      action: "user.delete",
      entityType: "user",
      entityId: id,
      summary: `eliminó el usuario ${existing.username}`,
      before: { ...userFieldsOf(existing), cards: deleted.releasedCards.map((card) => card.cardNumber) },
    });
    return { ok: true as const, deleted, bookingDoorIds };
  });
  if (!result.ok) return result;
  const { deleted, bookingDoorIds } = result;
  if (deleted.releasedCards.length > 0 || bookingDoorIds.length > 0 || groupIds.length > 0) {
    await notifyAccessChange({ cardIds: deleted.releasedCards.map((card) => card.id), doorIds: bookingDoorIds, groupIds });
  }
  return { ok: true, user: toUserJson(deleted.user), releasedCards: deleted.releasedCards.map((card) => card.cardNumber) };
}

// ---- The user's cards ----

export async function listUserCards(userId: string): Promise<Result<{ cards: CardJson[] }>> {
  if (!(await userModel.getUserById(userId))) return USER_REFUSALS.not_found;
  return { ok: true, cards: (await cardModel.listCardsOfUser(userId)).map(toCardJson) };
}

/** The 'Asignar Tarjeta' select's cards (SPEC §9: at most 100). */
export async function listAssignableCards(userId: string, limit: number) {
  return (await cardModel.listAssignableCards(userId, limit)).map(toCardJson);
}

/** A form's expiry: a day lasts until its end in the building; an instant is taken as is. */
function expiryOf(value: string | undefined): Date | null {
  if (!value) return null;
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? endOfMadridDay(value) : new Date(value);
}

type PreviousHolder = { id: string; username: string; firstName: string | null; lastName: string | null };

/** The page asks before taking a card from someone else: this is its question. */
export type ReassignQuestion = Refusal & { status: 409; holder: { id: string; name: string } };

export type AssignOptions = {
  /**
   * The screen's confirmation: the id of the holder the admin agreed to take
   * the card from ("" = none yet). Left out (the API), a card is reassigned
   * from whoever holds it.
   */
  confirmedFrom?: string;
};

/**
 * Gives the card (registered now when it is new) to the user, with its alias,
 * description, type and expiry; it comes out active. SPEC: a card someone
 * else holds is reassigned. The resident is told in their portal, and so is
 * the previous holder.
 */
export async function assignCard(
  userId: string,
  input: Omit<CardAssignmentInput, "reassignFrom">,
  { confirmedFrom }: AssignOptions = {},
): Promise<Result<{ card: CardJson; reassigned: boolean; previousUser: PreviousHolder | null }> | ReassignQuestion> {
  const cardNumber = canonicalCardId(input.cardNumber);
  if (!cardNumber) return USER_REFUSALS.card_number;
  const result = await audited(async (audit) => {
    const user = await userModel.getUserById(userId);
    if (!user) return USER_REFUSALS.not_found;
    const existing = await cardModel.getCardByNumberWithHolder(cardNumber);
    if (existing?.status === "suspended") return USER_REFUSALS.card_suspended;
    const holder = existing?.holder;
    if (confirmedFrom !== undefined && holder && holder.id !== userId && holder.id !== confirmedFrom) {
      const name = displayName(holder);
      const question: ReassignQuestion = {
        ...refuse(409, `La tarjeta ${cardNumber} está asignada a ${name}. Si la asignas, se le quitará a ese usuario.`, { field: "cardNumber" }),
        status: 409,
        holder: { id: holder.id, name },
      };
      return question;
    }
    const assigned = await cardModel.assignCardToUser(userId, {
      cardNumber,
      alias: input.alias ?? null,
      description: input.description ?? null,
      cardType: input.cardType,
      expiresAt: expiryOf(input.expiresAt),
    });
    const label = assigned.card.alias ? `«${assigned.card.alias}» (${cardNumber})` : cardNumber;
    await notifyUser(userId, { type: "card", title: "Tarjeta asignada", message: `Se te ha asignado la tarjeta ${label}.` });
    if (assigned.previousUser) {
      await notifyUser(assigned.previousUser.id, { type: "card", title: "Tarjeta retirada", message: `La tarjeta ${cardNumber} ya no está asignada a tu cuenta.` });
    }
    const reassigned = assigned.previousUser && assigned.previousUser.id !== userId ? assigned.previousUser : null;
    audit({
      action: reassigned ? "card.reassign" : "card.assign",
      entityType: "card",
      entityId: assigned.card.id,
      summary: reassigned
        ? `reasignó la tarjeta ${cardNumber} de ${reassigned.username} a ${user.username}`
        : `asignó la tarjeta ${cardNumber} a ${user.username}`,
      before: existing
        ? {
            holder: existing.holder?.username ?? null,
            alias: existing.alias,
            description: existing.description,
            type: existing.cardType,
            status: existing.status,
            expiresAt: existing.expiresAt,
          }
        : null,
      after: {
        holder: user.username,
        alias: assigned.card.alias,
        description: assigned.card.description,
        type: assigned.card.cardType,
        status: assigned.card.status,
        expiresAt: assigned.card.expiresAt,
      },
    });
    return { ok: true as const, assigned };
  });
  if (!result.ok) return result;
  const { assigned } = result;
  await notifyAccessChange({ cardIds: [assigned.card.id] });
  const card = await cardModel.getCardById(assigned.card.id);
  if (!card) return USER_REFUSALS.card_not_found;
  return { ok: true, card: toCardJson(card), reassigned: assigned.reassigned, previousUser: assigned.previousUser };
}

/** Alias, description, type and expiry of one of the user's cards. */
export async function editUserCard(userId: string, cardId: string, input: UserCardUpdateInput): Promise<Result<{ card: CardJson }>> {
  const fields = {
    alias: input.alias ?? null,
    description: input.description ?? null,
    cardType: input.cardType,
    expiresAt: expiryOf(input.expiresAt),
  };
  const result = await audited(async (audit): Promise<Result> => {
    const before = await cardModel.getCardById(cardId);
    if (!before || before.userId !== userId) return (await userModel.getUserById(userId)) ? USER_REFUSALS.card_not_found : USER_REFUSALS.not_found;
    const diff = changedFields(before, { ...before, ...fields }, ["alias", "description", "cardType", "expiresAt"] as const);
    if (diff.changed.length === 0) return { ok: true };
    const updated = await cardModel.updateCardOfUser(userId, cardId, fields);
    if (!updated) return USER_REFUSALS.card_not_found;
    audit({
      action: diff.changed.length === 1 && diff.changed[0] === "alias" ? "card.alias" : "card.update",
      entityType: "card",
      entityId: cardId,
      summary: `editó la tarjeta ${before.cardNumber} de ${before.holder?.username ?? userId}${
        fields.cardType && diff.changed.includes("cardType") ? ` (${CARD_TYPE_LABELS[fields.cardType].toLowerCase()})` : ""
      }`,
      before: diff.before,
      after: diff.after,
    });
    return { ok: true };
  });
  if (!result.ok) return result;
  await notifyAccessChange({ cardIds: [cardId] });
  const card = await cardModel.getCardById(cardId);
  if (!card) return USER_REFUSALS.card_not_found;
  return { ok: true, card: toCardJson(card) };
}

/** Takes the card from the user: unassigned and inactive, refused at every door until given again. */
export async function unassignUserCard(userId: string, cardId: string): Promise<Result<{ cardNumber: string }>> {
  const result = await audited(async (audit): Promise<Result<{ cardNumber: string }>> => {
    const before = await cardModel.getCardById(cardId);
    const card = await cardModel.unassignCardOfUser(userId, cardId);
    if (!card) return (await userModel.getUserById(userId)) ? USER_REFUSALS.card_not_found : USER_REFUSALS.not_found;
    await notifyUser(userId, { type: "card", title: "Tarjeta retirada", message: `La tarjeta ${card.cardNumber} ya no está asignada a tu cuenta.` });
    const holder = before?.holder?.username ?? userId;
    audit({
      action: "card.unassign",
      entityType: "card",
      entityId: cardId,
      summary: `desasignó la tarjeta ${card.cardNumber} de ${holder}`,
      before: { holder, status: before?.status ?? null },
      after: { holder: null, status: card.status },
    });
    return { ok: true, cardNumber: card.cardNumber };
  });
  // The user's access groups' doors carried the card too.
  if (result.ok) await notifyAccessChange({ cardIds: [cardId], userIds: [userId] });
  return result;
}
