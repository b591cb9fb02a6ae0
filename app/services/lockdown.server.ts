// The building's lockdown ('Bloqueo general', the dashboard and POST
// /api/building/lockdown): every door goes to emergency and shows 'CERRADO';
// only cards of type `emergency` open (online and in the offline lists, which
// then carry those cards only); lifting it gives each door back the status
// and messages it had. The doors hear of it at once (a change of everything).
import { notifyAccessChange } from "~/access/notify.server";
import * as doorModel from "~/models/door.server";
import { getSetting, setSetting, type LockdownSetting } from "~/models/setting.server";
import { refuse, type Result } from "~/utils/refusal.server";
import { audited } from "./audit.server";

/** What the doors show during a lockdown (status: at most 10 characters). */
export const LOCKDOWN_STATUS_TEXT = "CERRADO";
export const LOCKDOWN_WELCOME = "BLOQUEO GENERAL";

export type LockdownJson = { active: boolean; reason: string | null; since: string | null };

const toJson = (setting: LockdownSetting): LockdownJson => ({ active: setting.active, reason: setting.reason, since: setting.since });

export async function getLockdown(): Promise<LockdownJson> {
  return toJson(await getSetting("lockdown"));
}

/** Starts or lifts the lockdown; starting one that is on only changes its reason. */
export async function setLockdown(input: { active: boolean; reason?: string | null }, now = new Date()): Promise<Result<{ lockdown: LockdownJson }>> {
  if (input.active && !input.reason?.trim()) return refuse(400, "Indica el motivo del bloqueo", { field: "reason" });
  const result = await audited(async (audit) => {
    const changed = await writeLockdown(input, now);
    if (changed.ok && changed.changed) {
      audit({
        action: input.active ? "building.lockdown" : "building.lockdown_lift",
        entityType: "building",
        entityId: null,
        summary: input.active ? `activó el bloqueo general (${input.reason?.trim()})` : "levantó el bloqueo general",
        after: { active: input.active, reason: input.active ? (input.reason?.trim() ?? null) : null },
      });
    }
    return changed;
  });
  if (!result.ok) return result;
  if (result.changed) await notifyAccessChange({ all: true });
  return { ok: true, lockdown: result.lockdown };
}

async function writeLockdown({ active, reason }: { active: boolean; reason?: string | null }, now: Date): Promise<Result<{ lockdown: LockdownJson; changed: boolean }>> {
  const current = await getSetting("lockdown");
  if (active) {
    const previous = { ...current.previous };
    for (const door of await doorModel.listDoors()) {
      if (!current.active || !(door.id in previous)) {
        previous[door.id] = { status: door.status, useCustomMessages: door.useCustomMessages, customStatus: door.customStatus, customMessage: door.customMessage };
      }
      await doorModel.updateDoor(door.id, { status: "emergency", useCustomMessages: true, customStatus: LOCKDOWN_STATUS_TEXT, customMessage: LOCKDOWN_WELCOME });
    }
    const setting: LockdownSetting = { active: true, reason: reason?.trim() ?? null, since: current.active ? current.since : now.toISOString(), previous };
    await setSetting("lockdown", setting);
    return { ok: true, lockdown: toJson(setting), changed: true };
  }
  if (!current.active) return { ok: true, lockdown: toJson(current), changed: false };
  for (const door of await doorModel.listDoors()) {
    const before = current.previous[door.id];
    // A door added during the lockdown goes back to active with its own messages.
    await doorModel.updateDoor(door.id, before ?? { status: "active", useCustomMessages: false, customStatus: null, customMessage: null });
  }
  const lifted: LockdownSetting = { active: false, reason: null, since: null, previous: {} };
  await setSetting("lockdown", lifted);
  return { ok: true, lockdown: toJson(lifted), changed: true };
}
