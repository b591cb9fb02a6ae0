// Cards as the admin changes them, shared by /admin/cards, the access log's
// "approve" and /api/cards: the rules (alias, status, delete, approval,
// permissions), their refusals, the audit event of each change, and the
// announcement of every change that alters who may open a door to the access
// service (once the change has committed).
import { notifyAccessChange } from "~/access/notify.server";
import * as cardModel from "~/models/card.server";
import type { Card, CardListOptions, CardWithRelations } from "~/models/card.server";
import type { WeeklySchedule } from "~/db/schema";
import { addUserToGroup, getAccessGroup, listAccessGroups } from "~/models/access-group.server";
import { findDoorByCodeOrId, listDoors, type Door } from "~/models/door.server";
import { CARD_STATUS_LABELS, type SettableCardStatus } from "~/schemas/card";
import { refuse, type Refusal, type Result } from "~/utils/refusal.server";
import { audited } from "./audit.server";

export const CARD_ASSIGNED_MESSAGE =
  "No se puede eliminar una tarjeta asignada a un usuario. Por favor, desasigna la tarjeta primero.";

/** Why a card change was refused, for the screen and the API alike. */
export const CARD_REFUSALS = {
  not_found: refuse(404, "Tarjeta no encontrada"),
  door_not_found: refuse(404, "Puerta no encontrada"),
  permission_not_found: refuse(404, "La tarjeta no tiene permiso en esa puerta"),
  assigned: refuse(409, CARD_ASSIGNED_MESSAGE),
  pending: refuse(409, "La tarjeta está pendiente de aprobación: apruébala para activarla"),
  expired: refuse(409, "La tarjeta ha expirado: cambia su fecha de expiración antes de activarla"),
  not_pending: refuse(409, "La tarjeta no está pendiente de aprobación"),
  group_not_found: refuse(404, "Grupo de acceso no encontrado"),
  group_needs_holder: refuse(409, "La tarjeta no está asignada a nadie: dale una puerta con su horario, o asígnala antes de añadir a su titular a un grupo"),
} satisfies Record<string, Refusal>;

/** SPEC §3 card, as the API and the admin screen see it. */
export function toCardJson(card: CardWithRelations) {
  return {
    _id: card.id,
    cardNumber: card.cardNumber,
    alias: card.alias,
    description: card.description,
    type: card.cardType,
    status: card.status,
    isAnonymous: card.isAnonymous,
    userId: card.holder
      ? { _id: card.holder.id, firstName: card.holder.firstName, lastName: card.holder.lastName, username: card.holder.username }
      : null,
    /** `doorId`: the door's hardware code (`doorId` of /api/doors). */
    permissions: card.permissions.map(({ doorCode, granted, schedule }) => ({ doorId: doorCode, granted, schedule: schedule ?? [] })),
    usageStats: {
      lastUsed: card.lastUsedAt ? card.lastUsedAt.toISOString() : null,
      totalAccessAttempts: card.totalAccessAttempts,
      successfulAccesses: card.successfulAccesses,
    },
    createdAt: card.createdAt.toISOString(),
    expiresAt: card.expiresAt ? card.expiresAt.toISOString() : null,
  };
}
export type CardJson = ReturnType<typeof toCardJson>;

export function toDoorOption(door: Door) {
  return { _id: door.id, doorId: door.code, name: door.name, location: door.location, status: door.status };
}
export type DoorOption = ReturnType<typeof toDoorOption>;

export async function listCardsJson(options: CardListOptions) {
  return (await cardModel.listCards(options)).map(toCardJson);
}

export async function countCards(options: CardListOptions) {
  return cardModel.countCards(options);
}

export async function getCardJson(id: string): Promise<Result<{ card: CardJson }>> {
  const card = await cardModel.getCardById(id);
  return card ? { ok: true, card: toCardJson(card) } : CARD_REFUSALS.not_found;
}

/**
 * The card, every door, and the doors it has no permission on yet (granted
 * or denied), which are the ones a new permission can name.
 */
export async function getCardDetail(
  id: string,
): Promise<Result<{ card: CardJson; doors: DoorOption[]; availableDoors: DoorOption[]; groups: { id: string; name: string }[] }>> {
  const [card, doors, groups] = await Promise.all([cardModel.getCardById(id), listDoors(), listAccessGroups()]);
  if (!card) return CARD_REFUSALS.not_found;
  const withPermission = new Set(card.permissions.map((permission) => permission.doorId));
  const doorOptions = doors.map(toDoorOption);
  return {
    ok: true,
    card: toCardJson(card),
    doors: doorOptions,
    availableDoors: doorOptions.filter((door) => !withPermission.has(door._id)),
    /** The access groups its holder may join on approval. */
    groups: groups.map((group) => ({ id: group.id, name: group.name })),
  };
}
export type CardDetail = Extract<Awaited<ReturnType<typeof getCardDetail>>, { ok: true }>;

export type CardEdit = { alias?: string | null; status?: SettableCardStatus };

/**
 * The admin's edit of a card (screen and API). The alias is trimmed and an
 * empty one clears it; values equal to the stored ones save nothing
 * (`changed: false`). A pending card is approved, not switched on or off;
 * an expired card cannot be switched on (it would be deactivated again at its
 * next swipe). A refused edit changes nothing, the alias included.
 */
export async function editCard(id: string, edit: CardEdit, now = new Date()): Promise<Result<{ card: Card; changed: boolean }>> {
  const result = await audited(async (audit): Promise<Result<{ card: Card; changed: boolean }>> => {
    const card = await cardModel.getCardRow(id);
    if (!card) return CARD_REFUSALS.not_found;
    const fields: cardModel.CardUpdate = {};
    if (edit.alias !== undefined) {
      const alias = edit.alias?.trim() || null;
      if (alias !== card.alias) fields.alias = alias;
    }
    if (edit.status !== undefined && edit.status !== card.status) {
      if (card.status === "pending") return CARD_REFUSALS.pending;
      if (edit.status === "active" && card.expiresAt && card.expiresAt.getTime() <= now.getTime()) return CARD_REFUSALS.expired;
      fields.status = edit.status;
    }
    if (Object.keys(fields).length === 0) return { ok: true, card, changed: false };
    const updated = await cardModel.updateCard(id, fields);
    if (!updated) return CARD_REFUSALS.not_found;
    const before = { alias: card.alias, status: card.status };
    const after = { alias: updated.alias, status: updated.status };
    const changed = Object.keys(fields) as Array<keyof typeof fields>;
    if (changed.length === 1 && fields.alias !== undefined) {
      audit({
        action: "card.alias",
        entityType: "card",
        entityId: id,
        summary: updated.alias ? `cambió el alias de la tarjeta ${card.cardNumber} a «${updated.alias}»` : `quitó el alias de la tarjeta ${card.cardNumber}`,
        before: { alias: before.alias },
        after: { alias: after.alias },
      });
    } else if (changed.length === 1) {
      audit({
        action: "card.status",
        entityType: "card",
        entityId: id,
        summary: `cambió el estado de la tarjeta ${card.cardNumber} a ${CARD_STATUS_LABELS[updated.status].toLowerCase()}`,
        before: { status: before.status },
        after: { status: after.status },
      });
    } else {
      audit({ action: "card.update", entityType: "card", entityId: id, summary: `editó la tarjeta ${card.cardNumber}`, before, after });
    }
    return { ok: true, card: updated, changed: true };
  });
  if (result.ok && result.changed) await notifyAccessChange({ cardIds: [id] });
  return result;
}

/** SPEC: a card assigned to a user cannot be deleted (unassign it first). */
export async function deleteCard(id: string): Promise<Result<{ cardNumber: string }>> {
  const result = await audited(async (audit): Promise<Result<{ cardNumber: string; doorIds: string[] }>> => {
    const card = await cardModel.getCardById(id);
    if (!card) return CARD_REFUSALS.not_found;
    if (card.userId) return CARD_REFUSALS.assigned;
    // The permissions go with the card (foreign key cascade): announce their doors.
    const doorIds = await cardModel.listDoorIdsForCards([id]);
    const outcome = await cardModel.deleteUnassignedCard(id);
    if (outcome !== "deleted") return CARD_REFUSALS[outcome];
    audit({
      action: "card.delete",
      entityType: "card",
      entityId: id,
      summary: `eliminó la tarjeta ${card.cardNumber}`,
      before: {
        cardNumber: card.cardNumber,
        alias: card.alias,
        status: card.status,
        type: card.cardType,
        permissions: card.permissions.map(({ doorCode, granted }) => ({ doorId: doorCode, granted })),
      },
    });
    return { ok: true, cardNumber: card.cardNumber, doorIds };
  });
  if (!result.ok) return result;
  await notifyAccessChange({ doorIds: result.doorIds });
  return { ok: true, cardNumber: result.cardNumber };
}

/**
 * Grants (or explicitly denies) the card on a door. `door` is the door's
 * hardware code (the API's and the page's `doorId`) or its row id
 * (`findDoorByCodeOrId`), here and in the functions below.
 */
export async function setCardPermission(cardId: string, door: string, granted: boolean, schedule: WeeklySchedule = []): Promise<Result<{ door: Door }>> {
  const result = await audited(async (audit): Promise<Result<{ door: Door }>> => {
    const card = await cardModel.getCardById(cardId);
    if (!card) return CARD_REFUSALS.not_found;
    const found = await findDoorByCodeOrId(door);
    if (!found) return CARD_REFUSALS.door_not_found;
    const previous = card.permissions.find((permission) => permission.doorId === found.id);
    const timetable = granted && schedule.length > 0 ? schedule : null;
    await cardModel.upsertCardPermission(cardId, found.id, granted, timetable);
    audit({
      action: granted ? "card.permission_grant" : "card.permission_deny",
      entityType: "card",
      entityId: cardId,
      summary: `${granted ? "concedió" : "denegó"} el acceso de la tarjeta ${card.cardNumber} a ${found.name}`,
      before: { door: found.name, doorId: found.code, granted: previous ? previous.granted : null },
      after: { door: found.name, doorId: found.code, granted, ...(timetable ? { schedule: timetable } : {}) },
    });
    return { ok: true, door: found };
  });
  if (result.ok) await notifyAccessChange({ doorIds: [result.door.id] });
  return result;
}

/** Removes the card's permission (granted or denied) on the door. */
export async function removeCardPermission(cardId: string, door: string): Promise<Result<{ door: Door }>> {
  const result = await audited(async (audit): Promise<Result<{ door: Door }>> => {
    const card = await cardModel.getCardById(cardId);
    const found = await findDoorByCodeOrId(door);
    const previous = found ? card?.permissions.find((permission) => permission.doorId === found.id) : undefined;
    if (!card || !found || !previous || !(await cardModel.deleteCardPermission(cardId, found.id))) {
      return card ? CARD_REFUSALS.permission_not_found : CARD_REFUSALS.not_found;
    }
    audit({
      action: "card.permission_remove",
      entityType: "card",
      entityId: cardId,
      summary: previous.granted
        ? `revocó el acceso de la tarjeta ${card.cardNumber} a ${found.name}`
        : `retiró la denegación de la tarjeta ${card.cardNumber} en ${found.name}`,
      before: { door: found.name, doorId: found.code, granted: previous.granted },
      after: { door: found.name, doorId: found.code, granted: null },
    });
    return { ok: true, door: found };
  });
  // The card no longer leads to this door: announce the door itself.
  if (result.ok) await notifyAccessChange({ doorIds: [result.door.id] });
  return result;
}

/**
 * What an approval grants (the cards screen's and the log's confirmation):
 * one door, with its hours (`schedule`, empty: always), and/or the holder's
 * joining one access group (whose timetable then opens its doors).
 */
export type CardApproval = { door?: string | null; schedule?: WeeklySchedule; groupId?: string | null };

/**
 * Approves a card: a pending one becomes active; with a door it gets that
 * door (with `schedule` as its hours, or always), with a group its holder
 * joins it (issue 40, point 15). A card that is not pending needs a door or a group.
 */
export async function approveCard(
  cardId: string,
  grant: string | null | CardApproval = {},
): Promise<Result<{ card: Card; door: Door | null }>> {
  const { door = null, schedule = [], groupId = null } = typeof grant === "object" && grant !== null ? grant : { door: grant };
  const result = await audited(async (audit): Promise<Result<{ card: Card; door: Door | null }>> => {
    const existing = await cardModel.getCardById(cardId);
    if (!existing) return CARD_REFUSALS.not_found;
    const found = door ? await findDoorByCodeOrId(door) : null;
    if (door && !found) return CARD_REFUSALS.door_not_found;
    const group = groupId ? await getAccessGroup(groupId) : null;
    if (groupId && !group) return CARD_REFUSALS.group_not_found;
    if (group && !existing.userId) return CARD_REFUSALS.group_needs_holder;
    if (existing.status !== "pending" && !found && !group) return CARD_REFUSALS.not_pending;
    const timetable = schedule.length > 0 ? schedule : null;
    const card = await cardModel.activatePendingCardAndGrant(cardId, found?.id ?? null, timetable);
    if (!card) return CARD_REFUSALS.not_found;
    if (group && existing.userId) await addUserToGroup(existing.userId, group.id);
    const previous = found ? existing.permissions.find((permission) => permission.doorId === found.id) : undefined;
    const granted = [found ? ` con acceso a ${found.name}${timetable ? " en su horario" : ""}` : "", group ? ` y su titular en el grupo ${group.name}` : ""];
    audit({
      action: "card.approve",
      entityType: "card",
      entityId: cardId,
      summary: `aprobó la tarjeta ${existing.cardNumber}${granted.join("")}`,
      before: { status: existing.status, ...(found ? { door: found.name, doorId: found.code, granted: previous ? previous.granted : null } : {}) },
      after: {
        status: card.status,
        ...(found ? { door: found.name, doorId: found.code, granted: true, ...(timetable ? { schedule: timetable } : {}) } : {}),
        ...(group ? { group: group.name, groupId: group.id } : {}),
      },
    });
    return { ok: true, card, door: found };
  });
  if (result.ok) await notifyAccessChange({ cardIds: [cardId] });
  return result;
}
