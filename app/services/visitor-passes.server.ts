// Visitor passes (issue 29, docs/access-keys.md): a resident gives a visitor
// a door key (kind "visitor": a 6-digit PIN and a QR token) for one day's
// span of at most 12 hours within the next 30 days, on doors the resident can
// open themselves for all of that span (the building entrances unless they
// pick others). The visitor gets the PIN and the QR by mail; the resident sees
// their passes in the portal, may cancel one ('Anular invitación') and is told
// 'Tu visita {nombre} ha llegado' on its first use. The house sees and cancels
// them all (/admin/invitaciones, /api/visitor-passes).
import { notifyAccessChange } from "~/access/notify.server";
import { buildingLocalTime, isWithinSchedule, type WeeklySchedule } from "~/doors/schedule";
import { visitorPassMail } from "~/mail/visitor-mail.server";
import { listGroupDoorsOfUser } from "~/models/access-group.server";
import { listCardsOfUser } from "~/models/card.server";
import * as keyModel from "~/models/door-key.server";
import { findDoorByCodeOrId, listDoors, type Door } from "~/models/door.server";
import type { User } from "~/models/user.server";
import { MAX_VISITOR_PASS_DAYS_AHEAD, type VisitorPassFilters, type VisitorPassInput, type VisitorPassStatus } from "~/schemas/visitor-pass";
import { addDays, madridInstant, todayInMadrid } from "~/utils/dates";
import { getEnv } from "~/utils/env.server";
import { trySendMail } from "~/utils/mail.server";
import { pageWindow } from "~/utils/paging";
import { qrPng } from "~/utils/qr-code.server";
import { countRateLimitHit, peekRateLimit } from "./rate-limits.server";
import { refuse, type Result } from "~/utils/refusal.server";
import { audited } from "./audit.server";
import { freePin, newQrToken, qrHashOf } from "./door-keys.server";
import { notifyUser } from "./notifications.server";

export const VISITOR_PASS_NOT_FOUND = "Invitación no encontrada";
export const VISITOR_PASS_REFUSALS = {
  notFound: refuse(404, VISITOR_PASS_NOT_FOUND),
  notActive: refuse(409, "Esta invitación ya no está activa"),
  dateOutOfRange: refuse(400, `La fecha debe estar dentro de los próximos ${MAX_VISITOR_PASS_DAYS_AHEAD} días`, { field: "date" }),
  endPassed: refuse(400, "La hora de fin ya ha pasado", { field: "endTime" }),
  noEntrance: refuse(403, "No puedes abrir ninguna entrada del edificio en ese horario", { field: "doorIds" }),
} as const;

const residentName = (resident: { username: string; firstName: string | null; lastName: string | null }) =>
  [resident.firstName, resident.lastName].filter(Boolean).join(" ").trim() || resident.username;

/** A pass's status: cancelled, used (it opened a door), expired (over unused), or active. */
export function visitorPassStatus(pass: Pick<keyModel.VisitorPassRow, "status" | "firstUsedAt" | "validUntil">, now: Date): VisitorPassStatus {
  if (pass.status === "revoked") return "cancelled";
  if (pass.firstUsedAt) return "used";
  return pass.validUntil.getTime() <= now.getTime() ? "expired" : "active";
}

/** A pass as the API and the screens show it (never its PIN or token: those go only to its creator's answer and the visitor's mail). */
export function toVisitorPassJson(pass: keyModel.VisitorPassRow, now = new Date()) {
  return {
    _id: pass.id,
    visitorName: pass.visitorName ?? "",
    visitorEmail: pass.visitorEmail ?? "",
    validFrom: pass.validFrom.toISOString(),
    validUntil: pass.validUntil.toISOString(),
    doors: pass.doors.map((door) => ({ _id: door.id, doorId: door.code, name: door.name })),
    status: visitorPassStatus(pass, now),
    firstUsedAt: pass.firstUsedAt ? pass.firstUsedAt.toISOString() : null,
    createdBy: pass.createdBy,
    resident: pass.resident ? { _id: pass.resident.id, username: pass.resident.username, name: residentName(pass.resident) } : null,
    createdAt: pass.createdAt.toISOString(),
    /** Whether it can still be cancelled: not cancelled and not over. */
    cancellable: pass.status === "active" && pass.validUntil.getTime() > now.getTime(),
  };
}
export type VisitorPassJson = ReturnType<typeof toVisitorPassJson>;

// ---- Which doors a resident can open, and when ----

type DoorAccess = { door: Door; always: boolean; schedules: WeeklySchedule[] };

/**
 * The doors the resident's own cards open (active, not expired by `until`),
 * by their permissions and the resident's access groups: what they may give.
 */
async function residentDoorAccess(user: User, until: Date): Promise<Map<string, DoorAccess>> {
  const access = new Map<string, DoorAccess>();
  if (user.status !== "active") return access;
  const cards = (await listCardsOfUser(user.id)).filter((card) => card.status === "active" && (!card.expiresAt || card.expiresAt.getTime() >= until.getTime()));
  if (cards.length === 0) return access;
  const doorsById = new Map((await listDoors()).map((door) => [door.id, door]));
  const entry = (doorId: string) => {
    const door = doorsById.get(doorId);
    if (!door) return null;
    const found = access.get(doorId) ?? { door, always: false, schedules: [] };
    access.set(doorId, found);
    return found;
  };
  for (const permission of cards.flatMap((card) => card.permissions)) {
    if (!permission.granted) continue;
    const found = entry(permission.doorId);
    if (!found) continue;
    if (permission.schedule) found.schedules.push(permission.schedule);
    else found.always = true;
  }
  for (const groupDoor of await listGroupDoorsOfUser(user.id)) entry(groupDoor.doorId)?.schedules.push(groupDoor.schedule);
  return access;
}

/** Whether the resident can open the door at every minute of [from, until). */
function opensThroughout(access: DoorAccess | undefined, from: Date, until: Date) {
  if (!access) return false;
  if (access.always) return true;
  for (let at = from.getTime(); at < until.getTime(); at += 60_000) {
    const local = buildingLocalTime(new Date(at));
    if (!access.schedules.some((schedule) => isWithinSchedule(schedule, local))) return false;
  }
  return true;
}

/** The doors the portal's form offers: those the resident can open at some hour, entrances first, then by name. */
export async function visitorPassDoorChoices(user: User, now = new Date()) {
  const access = await residentDoorAccess(user, now);
  return [...access.values()]
    .map(({ door }) => ({ doorId: door.code, name: door.name, isEntrance: door.isEntrance }))
    .sort((a, b) => Number(b.isEntrance) - Number(a.isEntrance) || a.name.localeCompare(b.name, "es"));
}
export type VisitorPassDoorChoice = Awaited<ReturnType<typeof visitorPassDoorChoices>>[number];

// ---- Creating, listing, cancelling ----

export type CreatedVisitorPass = VisitorPassJson & { pin: string; qr: string };

/** POST /api/user-portal/visitor-passes and the portal's form: the pass with its PIN and QR token (shown once). */
export async function createVisitorPass(user: User, input: VisitorPassInput, now = new Date()): Promise<Result<{ pass: CreatedVisitorPass }>> {
  const today = todayInMadrid(now);
  if (input.date < today || input.date > addDays(today, MAX_VISITOR_PASS_DAYS_AHEAD)) return VISITOR_PASS_REFUSALS.dateOutOfRange;
  const validFrom = madridInstant(input.date, input.startTime);
  const validUntil = madridInstant(input.date, input.endTime);
  if (!validFrom || !validUntil || validUntil.getTime() <= validFrom.getTime()) return refuse(400, "La hora de fin debe ser posterior a la de inicio", { field: "endTime" });
  if (validUntil.getTime() <= now.getTime()) return VISITOR_PASS_REFUSALS.endPassed;
  const tooMany = await peekRateLimit("visitorPassCreation", [user.id], now.getTime());
  if (tooMany) return tooMany;
  const limit = getEnv().MAX_ACTIVE_VISITOR_PASSES;
  if ((await keyModel.countLiveVisitorPasses(user.id, now)) >= limit) {
    return refuse(409, `Ya tienes ${limit} invitaciones activas: anula una para crear otra`);
  }

  const access = await residentDoorAccess(user, validUntil);
  // A door a visit starts at may already be open at the start of the span; it must stay so to its end.
  const spanFrom = new Date(Math.max(validFrom.getTime(), now.getTime()));
  const chosen: Door[] = [];
  if (input.doorIds && input.doorIds.length > 0) {
    for (const requested of new Set(input.doorIds)) {
      const door = await findDoorByCodeOrId(requested);
      if (!door) return refuse(400, `Puerta no encontrada: ${requested}`, { field: "doorIds" });
      if (!opensThroughout(access.get(door.id), spanFrom, validUntil)) return refuse(403, `No puedes abrir ${door.name} en ese horario`, { field: "doorIds" });
      chosen.push(door);
    }
  } else {
    chosen.push(...[...access.values()].filter((entry) => entry.door.isEntrance && opensThroughout(entry, spanFrom, validUntil)).map((entry) => entry.door));
    if (chosen.length === 0) return VISITOR_PASS_REFUSALS.noEntrance;
  }

  const qrToken = newQrToken();
  const holder = residentName(user);
  const key = await audited(async (audit) => {
    const created = await keyModel.insertDoorKey(
      {
        kind: "visitor",
        reservationId: null,
        pin: await freePin(validFrom, validUntil),
        qrToken,
        qrHash: qrHashOf(qrToken),
        holderLabel: `Visita de ${input.visitorName}: ${holder}`,
        holderFirstName: input.visitorName.split(/\s+/)[0] ?? "",
        windows: [[validFrom.getTime(), validUntil.getTime()]],
        validFrom,
        validUntil,
        entrances: false,
        createdBy: user.id,
        visitorName: input.visitorName,
        visitorEmail: input.visitorEmail,
      },
      chosen.map((door) => door.id),
    );
    audit({
      action: "visitor_pass.create",
      entityType: "visitor_pass",
      entityId: created.id,
      summary: `invitó a ${input.visitorName} el ${input.date} de ${input.startTime} a ${input.endTime} (${chosen.map((door) => door.name).join(", ")})`,
      after: { visitorName: input.visitorName, visitorEmail: input.visitorEmail, validFrom, validUntil, doors: chosen.map((door) => door.code) },
    });
    return created;
  });
  await countRateLimitHit("visitorPassCreation", [user.id], now.getTime());
  await notifyAccessChange({ doorIds: chosen.map((door) => door.id) });
  const pass = await keyModel.getVisitorPass(key.id);
  const json = toVisitorPassJson(pass!, now);
  await trySendMail(
    visitorPassMail(
      { visitorName: input.visitorName, visitorEmail: input.visitorEmail, residentName: holder },
      { pin: key.pin, qr: qrToken, qrPng: await qrPng(qrToken), validFrom: json.validFrom, validUntil: json.validUntil, doors: json.doors },
    ),
  );
  return { ok: true, pass: { ...json, pin: key.pin, qr: qrToken } };
}

/** The resident's own passes, the latest first (the portal's card and GET /api/user-portal/visitor-passes). */
export async function listResidentVisitorPasses(user: User, now = new Date()) {
  const rows = await keyModel.listVisitorPasses({ createdBy: user.id, now }, { limit: 50, offset: 0 });
  return rows.map((row) => toVisitorPassJson(row, now));
}

/** Every pass, filtered and paged (GET /api/visitor-passes, /admin/invitaciones). */
export async function listVisitorPassesPage(filters: VisitorPassFilters, { page, limit, clamp = false }: { page: number; limit: number; clamp?: boolean }, now = new Date()) {
  const query = { createdBy: filters.userId || undefined, status: filters.status === "all" ? undefined : filters.status, search: filters.search || undefined, now };
  const total = await keyModel.countVisitorPasses(query);
  const window = pageWindow(total, { page, limit, clamp });
  const rows = await keyModel.listVisitorPasses(query, window);
  return { passes: rows.map((row) => toVisitorPassJson(row, now)), total, page: window.page, pages: window.pages };
}

/** One pass as the admin's screen shows it, or null. */
export async function getVisitorPassJson(id: string, now = new Date()) {
  const pass = await keyModel.getVisitorPass(id);
  return pass ? toVisitorPassJson(pass, now) : null;
}

/**
 * 'Anular invitación': revokes the pass (the resident's own when `createdBy`
 * is given: someone else's is not found); the doors drop it at once.
 */
export async function cancelVisitorPass(id: string, { createdBy }: { createdBy?: string } = {}, now = new Date()): Promise<Result<{ pass: VisitorPassJson }>> {
  const pass = await keyModel.getVisitorPass(id, createdBy);
  if (!pass) return VISITOR_PASS_REFUSALS.notFound;
  const revoked = await audited(async (audit) => {
    if (pass.validUntil.getTime() <= now.getTime()) return null;
    const key = await keyModel.revokeDoorKey(id, now);
    if (!key) return null;
    audit({
      action: "visitor_pass.cancel",
      entityType: "visitor_pass",
      entityId: id,
      summary: `anuló la invitación de ${pass.visitorName ?? ""}`,
      before: { status: "active" },
      after: { status: "cancelled" },
    });
    return key;
  });
  if (!revoked) return VISITOR_PASS_REFUSALS.notActive;
  await notifyAccessChange({ doorIds: pass.doors.map((door) => door.id) });
  return { ok: true, pass: toVisitorPassJson({ ...pass, ...revoked }, now) };
}

// ---- Arrivals ----

/**
 * Tells each resident whose visitor used their pass for the first time. The
 * notification carries a dedupe key, so a poll that stops between storing it
 * and marking the pass told (or two processes at once) never tells twice, and
 * one that fails before storing it tells on the next poll.
 */
export async function notifyVisitorArrivals(now = new Date()) {
  const arrivals = await keyModel.listUntoldVisitorArrivals();
  for (const arrival of arrivals) {
    if (arrival.createdBy) {
      await notifyUser(arrival.createdBy, {
        type: "info",
        title: "Visita",
        message: `Tu visita ${arrival.visitorName ?? ""} ha llegado`,
        dedupeKey: `visitor-arrival:${arrival.id}`,
      });
    }
    await keyModel.markVisitorArrivalTold(arrival.id, now);
  }
  return arrivals.length;
}

/** Polls for arrivals every intervalMs from boot on (boot.server.ts); answers the stop. */
export function scheduleVisitorArrivalPolls(intervalMs = 2000): () => void {
  const poll = () =>
    void notifyVisitorArrivals().catch((error: unknown) => console.error("[visitor-passes] arrival poll failed", error));
  poll();
  const timer = setInterval(poll, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
