// Access groups: the admin's form and the JSON API's bodies (docs/api.md,
// "Access groups"). A timetable is written in the form as text,
// "L-V 08:00-20:00; S 10:00-14:00" (empty: always), and sent to the API as
// ranges [{days: [1..7], from: "HH:MM", to: "HH:MM"}]. Browser-safe.
import * as z from "zod/mini";
import type { WeeklySchedule } from "~/db/schema-enums";
import { requiredText } from "./fields";

export const GROUP_NAME_REQUIRED = "El nombre es requerido";
const TIME = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;
const RANGE_MESSAGE = "Cada franja necesita días (1 = lunes … 7 = domingo) y horas «desde» y «hasta» (HH:MM, «hasta» posterior a «desde»)";
export const SCHEDULE_TEXT_MESSAGE = "Escribe el horario como «L-V 08:00-20:00; S 10:00-14:00» (vacío: siempre)";
/** Most ranges in one timetable. */
export const MAX_SCHEDULE_RANGES = 14;

const minutes = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

const scheduleRange = z
  .object({
    days: z.array(z.number().check(z.int(), z.minimum(1), z.maximum(7))).check(z.minLength(1), z.maxLength(7)),
    from: z.string().check(z.regex(TIME)),
    to: z.string().check(z.regex(TIME)),
  })
  .check(z.refine((range) => minutes(range.from) < minutes(range.to), RANGE_MESSAGE));

/** A timetable as the API sends it: up to MAX_SCHEDULE_RANGES ranges; empty or absent: always. */
export const scheduleSchema = z.array(scheduleRange, { error: RANGE_MESSAGE }).check(z.maxLength(MAX_SCHEDULE_RANGES, RANGE_MESSAGE));

const DAY_LETTERS: Record<string, number> = { L: 1, M: 2, X: 3, J: 4, V: 5, S: 6, D: 7 };

/** "L-V 08:00-20:00; S,D 10:00-14:00" → ranges; null when it cannot be read. "" → [] (always). */
export function parseScheduleText(text: string): WeeklySchedule | null {
  const schedule: WeeklySchedule = [];
  for (const chunk of text.split(/[;\n]/)) {
    const part = chunk.trim();
    if (part === "") continue;
    const match = /^([LMXJVSD](?:\s*[-,]\s*[LMXJVSD])*)\s+(\d{2}:\d{2})\s*-\s*(\d{2}:\d{2})$/i.exec(part);
    if (!match) return null;
    const days = new Set<number>();
    for (const group of match[1]!.toUpperCase().replace(/\s/g, "").split(",")) {
      const [first, last] = group.split("-");
      const start = DAY_LETTERS[first!]!;
      const end = last ? DAY_LETTERS[last]! : start;
      if (end < start) return null;
      for (let day = start; day <= end; day += 1) days.add(day);
    }
    const range = { days: [...days].sort((a, b) => a - b), from: match[2]!, to: match[3]! };
    if (!TIME.test(range.from) || !TIME.test(range.to) || minutes(range.from) >= minutes(range.to)) return null;
    schedule.push(range);
  }
  return schedule.length > MAX_SCHEDULE_RANGES ? null : schedule;
}

/**
 * A timetable from the API (ranges) or a form (text): empty or absent, always.
 * A text that cannot be read is refused with SCHEDULE_TEXT_MESSAGE.
 */
export const scheduleField = z.optional(
  z.pipe(
    z.transform((value: unknown, context) => {
      if (value === null || value === undefined) return [];
      if (typeof value !== "string") return value;
      const parsed = parseScheduleText(value);
      if (parsed === null) context.issues.push({ code: "custom", message: SCHEDULE_TEXT_MESSAGE, input: value });
      return parsed ?? [];
    }),
    scheduleSchema,
  ),
);

const groupName = requiredText(GROUP_NAME_REQUIRED, 60);

const groupDoor = z.object({
  doorId: z.string().check(z.minLength(1, "Falta la puerta"), z.maxLength(64)),
  schedule: z._default(scheduleSchema, []),
});

/** POST /api/access-groups. */
export const AccessGroupCreateSchema = z.object({
  name: groupName,
  doors: z._default(z.array(groupDoor).check(z.maxLength(500)), []),
});

/** PUT /api/access-groups/{id}: only the fields sent change (an empty body is refused). */
export const AccessGroupUpdateSchema = z.object({
  name: z.optional(groupName),
  doors: z.optional(z.array(groupDoor).check(z.maxLength(500))),
});

export type AccessGroupInput = z.output<typeof AccessGroupCreateSchema>;
export type AccessGroupUpdateInput = z.output<typeof AccessGroupUpdateSchema>;

/**
 * The group modal's form: the name, `door` (the ids of the doors ticked) and
 * one `schedule-<doorId>` text per door. Parsed by the page's controller with
 * `groupFormToInput`.
 */
export const AccessGroupFormSchema = z.object({
  name: groupName,
  door: z._default(z.pipe(z.transform((value: unknown) => (typeof value === "string" ? [value] : value)), z.array(z.string())), []),
});

/** PUT /api/settings. */
export const SettingsUpdateSchema = z.object({
  defaultAccessGroupId: z.optional(z.nullable(z.string().check(z.maxLength(64)))),
});

/** Turns a user's `accessGroups` field (form or JSON) into a list of ids. */
export const accessGroupIdsField = z.optional(
  z.pipe(
    z.transform((value: unknown) => (typeof value === "string" ? (value === "" ? [] : [value]) : value === null ? [] : value)),
    z.array(z.string().check(z.maxLength(64))).check(z.maxLength(100)),
  ),
);
