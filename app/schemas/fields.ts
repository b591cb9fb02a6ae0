// The field types every form schema is built from, so each rule is written
// once and holds for every form and API body alike. Browser-safe.
//
// - Text is trimmed, and control characters (NUL, bidirectional overrides…)
//   are refused: nothing invisible is stored.
// - An email field holds exactly one address.
// - A date field holds a real calendar day (no 2026-13-45).
import { z } from "zod";

/** C0/C1 controls (line breaks aside), and the bidirectional and zero-width format characters. */
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/;
export const CONTROL_CHARACTERS_MESSAGE = "El texto contiene caracteres no permitidos";

const tooLong = (max: number) => `Máximo ${max} caracteres`;

/** Trimmed text without control characters (line breaks allowed), at most `max` characters. */
export function text(max: number) {
  return z
    .string()
    .trim()
    .max(max, tooLong(max))
    .refine((value) => !CONTROL_CHARACTERS.test(value), CONTROL_CHARACTERS_MESSAGE);
}

/** Required text: missing or blank answers `required`. */
export function requiredText(required: string, max: number) {
  return z
    .string({ error: required })
    .trim()
    .min(1, required)
    .max(max, tooLong(max))
    .refine((value) => !CONTROL_CHARACTERS.test(value), CONTROL_CHARACTERS_MESSAGE);
}

/** Optional text: empty means not given (undefined). */
export function optionalText(max: number) {
  return text(max).optional();
}

/** SPEC §5: non-space text, @, text, dot, text; and one address only (no lists, no spaces). */
export const EMAIL_PATTERN = /^[^\s@,;<>"]+@[^\s@,;<>"]+\.[^\s@,;<>"]+$/;

/** One email address, lower-cased. */
export function email({ required, invalid }: { required: string; invalid: string }) {
  return requiredText(required, 254)
    .pipe(z.string().regex(EMAIL_PATTERN, invalid))
    .transform((value) => value.toLowerCase());
}

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether "YYYY-MM-DD" is a day that exists in the calendar. */
export function isCalendarDay(value: string) {
  const match = ISO_DAY.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** A calendar day as "YYYY-MM-DD"; anything else answers `invalid`. */
export function isoDay(invalid: string) {
  return z.string({ error: invalid }).trim().refine(isCalendarDay, invalid);
}

/** "HH:MM", 00:00 to 23:59. */
export function timeOfDay(invalid: string) {
  return z
    .string({ error: invalid })
    .trim()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, invalid);
}

/** A phone number as people write it: digits, spaces, + - ( ) and dots. */
export function phone({ required, invalid }: { required: string; invalid: string }) {
  return requiredText(required, 30).pipe(z.string().regex(/^[+()\d][\d\s().+-]*$/, invalid));
}

/** A list query's `page` (≥ 1, default 1) and `limit` (1 to `maxLimit`). */
export function pagingFields(maxLimit: number, defaultLimit: number) {
  const pageMessage = "page debe ser un número entero mayor que 0";
  const limitMessage = `limit debe ser un número entre 1 y ${maxLimit}`;
  return {
    page: z.coerce.number({ error: pageMessage }).int(pageMessage).min(1, pageMessage).default(1),
    limit: z.coerce.number({ error: limitMessage }).int(limitMessage).min(1, limitMessage).max(maxLimit, limitMessage).default(defaultLimit),
  };
}
