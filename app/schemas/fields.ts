// The field types every form schema is built from, so each rule is written
// once and holds for every form and API body alike. Browser-safe.
//
// - Text is trimmed, and control characters (NUL, bidirectional overrides…)
//   and lone surrogates are refused: nothing invisible or unstorable is stored.
// - Single-line text (names, titles, codes, aliases) refuses line breaks too;
//   only the multi-line kinds (descriptions, messages, notes: what a textarea
//   sends) keep them.
// - An email field holds exactly one address.
// - A date field holds a real calendar day (no 2026-13-45).
//
// Every schema under app/schemas/ is written with zod/mini: the browser loads
// them (conform validates each form before it is sent), and mini's functions
// tree-shake where classic zod's methods do not.
import * as z from "zod/mini";

/** C0/C1 controls (line breaks aside), and the bidirectional and zero-width format characters. */
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/;
/**
 * A lone UTF-16 surrogate (half of a pair without its other half): JSON's
 * "\ud800" makes one, and no UTF-8 text (the database, a log line) can hold it.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** What ends a line: CR, LF, and Unicode's line and paragraph separators. */
const LINE_BREAKS = /[\r\n\u2028\u2029]/;
export const CONTROL_CHARACTERS_MESSAGE = "El texto contiene caracteres no permitidos";
export const LINE_BREAK_MESSAGE = "Este campo no admite saltos de línea";

const tooLong = (max: number) => `Máximo ${max} caracteres`;
const noControlCharacters = (value: string) => !CONTROL_CHARACTERS.test(value) && !LONE_SURROGATE.test(value);
const noLineBreaks = (value: string) => !LINE_BREAKS.test(value);

/**
 * The one text rule, as checks to add after a field's own (trim, lengths):
 * no control characters, and for a single-line field no line breaks.
 */
export function textRule({ multiline = false }: { multiline?: boolean } = {}) {
  const noControl = z.refine<string>(noControlCharacters, CONTROL_CHARACTERS_MESSAGE);
  return multiline ? [noControl] : [noControl, z.refine<string>(noLineBreaks, LINE_BREAK_MESSAGE)];
}

/** Trimmed single-line text without control characters, at most `max` characters. */
export function text(max: number) {
  return z.string().check(z.trim(), z.maxLength(max, tooLong(max)), ...textRule());
}

/** The same for a description or a message: line breaks allowed. */
export function multilineText(max: number) {
  return z.string().check(z.trim(), z.maxLength(max, tooLong(max)), ...textRule({ multiline: true }));
}

/** Required single-line text: missing or blank answers `required`. */
export function requiredText(required: string, max: number) {
  return z.string({ error: required }).check(z.trim(), z.minLength(1, required), z.maxLength(max, tooLong(max)), ...textRule());
}

/** Required multi-line text (a description, a message). */
export function requiredMultilineText(required: string, max: number) {
  return z
    .string({ error: required })
    .check(z.trim(), z.minLength(1, required), z.maxLength(max, tooLong(max)), ...textRule({ multiline: true }));
}

/** Optional single-line text: empty means not given (undefined). */
export function optionalText(max: number) {
  return z.optional(text(max));
}

/** Optional multi-line text. */
export function optionalMultilineText(max: number) {
  return z.optional(multilineText(max));
}

/** SPEC §5: non-space text, @, text, dot, text; and one address only (no lists, no spaces). */
export const EMAIL_PATTERN = /^[^\s@,;<>"]+@[^\s@,;<>"]+\.[^\s@,;<>"]+$/;

/** One email address, lower-cased. */
export function email({ required, invalid }: { required: string; invalid: string }) {
  return z.pipe(
    z.pipe(requiredText(required, 254), z.string().check(z.regex(EMAIL_PATTERN, invalid))),
    z.transform((value: string) => value.toLowerCase()),
  );
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
  return z.string({ error: invalid }).check(z.trim(), z.refine(isCalendarDay, invalid));
}

/** "HH:MM", 00:00 to 23:59. */
export function timeOfDay(invalid: string) {
  return z.string({ error: invalid }).check(z.trim(), z.regex(/^([01]\d|2[0-3]):[0-5]\d$/, invalid));
}

/** A leading + at most, then digits, spaces and the separators people write: - . ( ). */
const PHONE_PATTERN = /^\+?[\d\s().-]+$/;
export const PHONE_MIN_DIGITS = 6;
export const PHONE_MAX_DIGITS = 20;

/** Whether `value` is a phone number as people write it, with 6 to 20 digits. */
export function isPhoneNumber(value: string) {
  const digits = value.replace(/\D/g, "").length;
  return PHONE_PATTERN.test(value) && digits >= PHONE_MIN_DIGITS && digits <= PHONE_MAX_DIGITS;
}

/** A phone number: digits and spaces, a leading +, the separators - . ( ); 6 to 20 digits. */
export function phone({ required, invalid }: { required: string; invalid: string }) {
  return z.pipe(requiredText(required, 30), z.string().check(z.refine(isPhoneNumber, invalid)));
}

/** The same, optional: empty means not given (undefined). */
export function optionalPhone(invalid: string) {
  return z.optional(
    z.pipe(
      text(30).check(z.refine((value) => value === "" || isPhoneNumber(value), invalid)),
      z.transform((value: string) => value || undefined),
    ),
  );
}

/** Every password anyone sets (admin forms, the portal, the APIs): this long at least. */
export const PASSWORD_MIN_LENGTH = 10;
const PASSWORD_MAX_LENGTH = 128;
export const PASSWORD_TOO_SHORT = `La contraseña debe tener al menos ${PASSWORD_MIN_LENGTH} caracteres`;
export const PASSWORD_TOO_COMMON = "Esa contraseña es demasiado común: elige otra";

/**
 * A short list of the passwords people pick first (at least 10 characters
 * long, so the length rule does not already refuse them), compared ignoring
 * case. Passwords made of fewer than four different characters count too.
 */
const COMMON_PASSWORDS = new Set([
  "0123456789", "0987654321", "1111111111", "1234512345", "1234567890", "12345678910", "123456789a", "a123456789",
  "abc1234567", "abcdefghij", "qwertyuiop", "qwerty1234", "qwerty12345", "1q2w3e4r5t", "1qaz2wsx3edc", "zxcvbnm123",
  "asdfghjkl1", "password12", "password123", "password1234", "passw0rd123", "contraseña", "contraseña1", "contraseña123",
  "contrasena", "contrasena1", "contrasena123", "iloveyou12", "teamo12345", "princesa12", "superman12", "football12",
  "futbol1234", "barcelona1", "realmadrid", "bienvenido", "bienvenido1", "administrador", "admin12345", "admin123456",
  "changeme12", "letmein123", "welcome123", "asturias12", "coliving12", "lacasona123",
]);

export function isCommonPassword(password: string) {
  const normalized = password.normalize("NFKC").toLowerCase();
  return COMMON_PASSWORDS.has(normalized) || new Set(normalized).size < 4;
}

/** A new password: missing answers `required`; too short, too long or too common is refused. */
export function newPassword(required: string) {
  return z
    .string({ error: required })
    .check(
      z.minLength(1, required),
      z.minLength(PASSWORD_MIN_LENGTH, PASSWORD_TOO_SHORT),
      z.maxLength(PASSWORD_MAX_LENGTH, `La contraseña admite como máximo ${PASSWORD_MAX_LENGTH} caracteres`),
      z.refine((value) => !isCommonPassword(value), PASSWORD_TOO_COMMON),
    );
}

/** A list query's `page` (≥ 1, default 1) and `limit` (1 to `maxLimit`). */
export function pagingFields(maxLimit: number, defaultLimit: number) {
  const pageMessage = "page debe ser un número entero mayor que 0";
  const limitMessage = `limit debe ser un número entre 1 y ${maxLimit}`;
  return {
    page: z._default(z.coerce.number({ error: pageMessage }).check(z.int(pageMessage), z.minimum(1, pageMessage)), 1),
    limit: z._default(
      z.coerce.number({ error: limitMessage }).check(z.int(limitMessage), z.minimum(1, limitMessage), z.maximum(maxLimit, limitMessage)),
      defaultLimit,
    ),
  };
}

/**
 * A schema that depends on the building's date ("YYYY-MM-DD"), built once per
 * day: building a zod schema costs more than using it, and form pages render
 * theirs on every request.
 */
export function builtOncePerDay<Schema>(build: (today: string) => Schema) {
  let latest: { today: string; schema: Schema } | undefined;
  return ({ today }: { today: string }) => {
    if (latest?.today !== today) latest = { today, schema: build(today) };
    return latest.schema;
  };
}
