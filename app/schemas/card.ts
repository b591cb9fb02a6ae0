// Cards: the list query, the admin's forms and the JSON API bodies, shared by
// the browser and the server. Browser-safe (no drizzle).
import * as z from "zod/mini";
import { scheduleField } from "./access-group";
import type { CARD_STATUSES, CARD_TYPES } from "~/db/schema-enums";
import { textRule } from "./fields";

export const CARD_STATUS_LABELS: Record<(typeof CARD_STATUSES)[number], string> = {
  pending: "Pendiente",
  active: "Activa",
  inactive: "Inactiva",
  suspended: "Suspendida",
};

export const CARD_TYPE_LABELS: Record<(typeof CARD_TYPES)[number], string> = {
  primary: "Principal",
  secondary: "Secundaria",
  temporary: "Temporal",
  emergency: "Emergencia",
};

/** SPEC §9 card sort fields; the first is the default. */
export const CARD_SORT_KEYS = [
  "lastUsed",
  "createdAt",
  "totalAccessAttempts",
  "successfulAccesses",
  "cardNumber",
  "alias",
  "status",
] as const;
export type CardSortKey = (typeof CARD_SORT_KEYS)[number];

export const SORT_ORDERS = ["desc", "asc"] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

/** all; anonymous: first used from a mobile device; registered: the others. */
export const ANONYMOUS_FILTERS = ["all", "anonymous", "registered"] as const;
export type AnonymousFilter = (typeof ANONYMOUS_FILTERS)[number];

export const ANONYMOUS_FILTER_LABELS: Record<AnonymousFilter, string> = {
  all: "Todas",
  anonymous: "Solo anónimas",
  registered: "No anónimas",
};

/** The statuses an admin may set by hand; pending cards are approved instead. */
export const SETTABLE_CARD_STATUSES = ["active", "inactive"] as const;
export type SettableCardStatus = (typeof SETTABLE_CARD_STATUSES)[number];

export const CARD_LIST_MAX_LIMIT = 100;
export const ALIAS_MAX_LENGTH = 100;

export const CardFiltersSchema = z.object({
  sortBy: z._default(z.enum(CARD_SORT_KEYS, { error: `sortBy debe ser uno de: ${CARD_SORT_KEYS.join(", ")}` }), "lastUsed"),
  sortOrder: z._default(z.enum(SORT_ORDERS, { error: "sortOrder debe ser asc o desc" }), "desc"),
  anonymousFilter: z._default(
    z.enum(ANONYMOUS_FILTERS, { error: `anonymousFilter debe ser uno de: ${ANONYMOUS_FILTERS.join(", ")}` }),
    "all",
  ),
  cardNumber: z._default(z.string().check(z.trim(), z.maxLength(64, "El número de tarjeta admite como máximo 64 caracteres")), ""),
});
export type CardFilters = z.infer<typeof CardFiltersSchema>;

/** GET /api/cards query. */
export const CardListQuerySchema = z.extend(CardFiltersSchema, {
  reassignable: z.pipe(
    z._default(z.enum(["true", "false"], { error: "reassignable debe ser true o false" }), "false"),
    z.transform((value: "true" | "false") => value === "true"),
  ),
  limit: z._default(
    z.coerce
      .number({ error: `limit debe ser un número entre 1 y ${CARD_LIST_MAX_LIMIT}` })
      .check(
        z.int(`limit debe ser un número entre 1 y ${CARD_LIST_MAX_LIMIT}`),
        z.minimum(1, `limit debe ser un número entre 1 y ${CARD_LIST_MAX_LIMIT}`),
        z.maximum(CARD_LIST_MAX_LIMIT, `limit debe ser un número entre 1 y ${CARD_LIST_MAX_LIMIT}`),
      ),
    CARD_LIST_MAX_LIMIT,
  ),
});

const STATUS_MESSAGE = "El estado debe ser activa (active) o inactiva (inactive)";
const settableStatus = z.enum(SETTABLE_CARD_STATUSES, { error: STATUS_MESSAGE });

/** Trimmed, one line, no control characters; empty means "no alias" (null). */
const alias = z
  .string({ error: "El alias debe ser texto" })
  .check(z.trim(), z.maxLength(ALIAS_MAX_LENGTH, `El alias admite como máximo ${ALIAS_MAX_LENGTH} caracteres`), ...textRule());

/** Admin table: the status select of a row. */
export const CardStatusSchema = z.object({ status: settableStatus });

/** Card detail: the alias form (conform sends an emptied field as undefined). */
export const CardAliasSchema = z.object({ alias: z.optional(alias) });

const DOOR_REQUIRED = "Selecciona una puerta";

/**
 * Card detail and POST /api/cards/{id}/permissions: `doorId` is the door's
 * hardware code (its row id, `_id`, is still accepted for one release).
 */
export const CardPermissionSchema = z.object({
  doorId: z.string({ error: DOOR_REQUIRED }).check(z.trim(), z.minLength(1, DOOR_REQUIRED)),
  granted: z.pipe(
    z.transform((value: unknown) => (value === "true" ? true : value === "false" ? false : value)),
    z.boolean({ error: "granted debe ser true o false" }),
  ),
  /** A granted permission's timetable (ranges, or the form's text); absent or empty: always. */
  schedule: scheduleField,
});

/**
 * Approval (the cards screen, the log's confirmation, PUT /api/cards/{id}/approve):
 * optionally grant one door (`doorId`, its hardware code; its row id still
 * accepted for one release) with its hours (`schedule`, ranges or the form's
 * text; empty: always), and/or add the card's holder to an access group
 * (`groupId`), whose timetable then opens its doors (issue 40, point 15).
 */
export const CardApproveSchema = z.object({
  doorId: z.optional(z.nullable(z.string({ error: "doorId debe ser texto" }).check(z.trim()))),
  schedule: scheduleField,
  groupId: z.optional(z.nullable(z.string({ error: "groupId debe ser texto" }).check(z.trim(), z.maxLength(64, "groupId no es válido")))),
});

/** PUT /api/cards/{id}. */
export const CardUpdateSchema = z
  .object({ alias: z.optional(z.nullable(alias)), status: z.optional(settableStatus) })
  .check(z.refine((value) => value.alias !== undefined || value.status !== undefined, { message: "Indica el alias o el estado" }));
