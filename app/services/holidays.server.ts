// The building's calendar of holidays, shared by /admin/grupos and
// /api/holidays: on these days door timetables do not unlock unless the door
// says otherwise (docs/mqtt.md, "Doors on a timetable"). Every change is
// audited and announced for the doors with a timetable, whose retained
// display carries the days. A fresh install is seeded once with Spain's and
// Asturias's holidays of the current and the next year.
import { notifyAccessChange } from "~/access/notify.server";
import { listDoors } from "~/models/door.server";
import * as holidayModel from "~/models/holiday.server";
import type { HolidayInput } from "~/schemas/holiday";
import { isUniqueViolation } from "~/utils/db.server";
import { refuse, type Result } from "~/utils/refusal.server";
import { spainAsturiasHolidays } from "~/utils/spain-holidays";
import { TIME_ZONE } from "~/utils/dates";
import { audited } from "./audit.server";

export const HOLIDAY_NOT_FOUND = "Festivo no encontrado";
export const HOLIDAY_TAKEN = "Ya hay un festivo ese día";

export function toHolidayJson(holiday: holidayModel.Holiday) {
  return { _id: holiday.id, day: holiday.day, name: holiday.name, createdAt: holiday.createdAt.toISOString() };
}
export type HolidayJson = ReturnType<typeof toHolidayJson>;

export async function listHolidays() {
  return (await holidayModel.listHolidays()).map(toHolidayJson);
}

async function announce() {
  const doorIds = (await listDoors()).filter((door) => door.unlockSchedule.length > 0).map((door) => door.id);
  if (doorIds.length > 0) await notifyAccessChange({ doorIds });
}

export async function createHoliday(input: HolidayInput): Promise<Result<{ holiday: HolidayJson }>> {
  let holiday: holidayModel.Holiday;
  try {
    holiday = await audited(async (audit) => {
      const created = await holidayModel.insertHoliday(input);
      audit({ action: "holiday.create", entityType: "holiday", entityId: created.id, summary: `añadió el festivo ${created.day} (${created.name})`, after: input });
      return created;
    });
  } catch (error) {
    if (!isUniqueViolation(error, "holidays.day")) throw error;
    return refuse(409, HOLIDAY_TAKEN, { field: "day" });
  }
  await announce();
  return { ok: true, holiday: toHolidayJson(holiday) };
}

export async function deleteHoliday(id: string): Promise<Result<{ holiday: HolidayJson }>> {
  const deleted = await audited(async (audit) => {
    const row = await holidayModel.deleteHoliday(id);
    if (row) {
      audit({ action: "holiday.delete", entityType: "holiday", entityId: id, summary: `eliminó el festivo ${row.day} (${row.name})`, before: { day: row.day, name: row.name } });
    }
    return row;
  });
  if (!deleted) return refuse(404, HOLIDAY_NOT_FOUND);
  await announce();
  return { ok: true, holiday: toHolidayJson(deleted) };
}

/** At boot: a fresh install's calendar gets this year's and next year's holidays, once. */
export async function seedHolidays(now = new Date()) {
  const year = Number(new Intl.DateTimeFormat("en", { timeZone: TIME_ZONE, year: "numeric" }).format(now));
  return holidayModel.seedHolidaysOnce([...spainAsturiasHolidays(year), ...spainAsturiasHolidays(year + 1)]);
}
