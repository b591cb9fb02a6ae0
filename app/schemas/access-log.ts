// The access log's filters (page and JSON API), the API's queries and bodies,
// and the Spanish labels. Browser-safe (no drizzle).
import * as z from "zod/mini";
import { pagingFields } from "./fields";

/** SPEC §9. */
export const LOG_PAGE_SIZE = 50;
export const LOG_API_MAX_LIMIT = 200;
/** SPEC §9: rows of the same card, door and result within this window show as one. */
export const LOG_MERGE_WINDOW_MS = 5 * 60_000;
export const LOG_SEARCH_MAX_LENGTH = 64;
/**
 * A search's stats and pages are counted up to this many rows; past it they
 * say "más de …" (docs/api.md). Filters without a search are always exact.
 */
export const LOG_COUNT_BOUND = 10_000;

/**
 * The log's kinds of row (issue 40, points 15 and 17): `all` (the default)
 * is every row but the resolved denials; an alarm is never a grant or a denial.
 */
export const LOG_STATUSES = ["all", "granted", "denied", "alarm", "resolved"] as const;
export type LogStatus = (typeof LOG_STATUSES)[number];

/** A row's outcome as the database computes it (access_logs.outcome, migration 0028). */
export const ACCESS_OUTCOMES = { denied: 0, granted: 1, alarm: 2, resolved: 3 } as const;
export type AccessOutcome = keyof typeof ACCESS_OUTCOMES;
export const OUTCOME_OF_VALUE: Record<number, AccessOutcome> = { 0: "denied", 1: "granted", 2: "alarm", 3: "resolved" };

/** SPEC §9: the first is the default. */
export const LOG_DATE_RANGES = ["24h", "7d", "30d", "all"] as const;
export type LogDateRange = (typeof LOG_DATE_RANGES)[number];

export const LOG_STATUS_LABELS: Record<LogStatus, string> = {
  all: "Todos",
  granted: "Concedidos",
  denied: "Denegados",
  alarm: "Alarmas",
  resolved: "Resueltos",
};

export const LOG_DATE_RANGE_LABELS: Record<LogDateRange, string> = {
  "24h": "Últimas 24 horas",
  "7d": "Últimos 7 días",
  "30d": "Últimos 30 días",
  all: "Todo el historial",
};

/** What was presented at the door (issue 29): "all" or one credential kind. */
export const LOG_CREDENTIAL_KINDS = ["all", "card", "pin", "qr"] as const;
export type LogCredentialKind = (typeof LOG_CREDENTIAL_KINDS)[number];
export const CREDENTIAL_KIND_LABELS: Record<LogCredentialKind, string> = { all: "Todas", card: "Tarjeta", pin: "PIN", qr: "QR" };

/** A row's result as the screen and the CSV say it; a resolved denial says who resolved it in its title. */
export const ACCESS_RESULT_LABELS: Record<AccessOutcome, string> = { granted: "Concedido", denied: "Denegado", alarm: "Alarma", resolved: "Resuelto" };

export const LogFiltersSchema = z.object({
  status: z._default(z.enum(LOG_STATUSES, { error: "status debe ser all, granted, denied, alarm o resolved" }), "all"),
  /** The door's hardware code (`doorId` of /api/doors; its row id still accepted for one release); empty = every door. */
  doorId: z._default(z.string().check(z.trim(), z.maxLength(64, "doorId no es válido")), ""),
  dateRange: z._default(z.enum(LOG_DATE_RANGES, { error: "dateRange debe ser 24h, 7d, 30d o all" }), "24h"),
  /** A card number prefix (any usual notation) or a username prefix. */
  search: z._default(
    z.string().check(z.trim(), z.maxLength(LOG_SEARCH_MAX_LENGTH, `La búsqueda admite como máximo ${LOG_SEARCH_MAX_LENGTH} caracteres`)),
    "",
  ),
  credentialKind: z._default(z.enum(LOG_CREDENTIAL_KINDS, { error: "credentialKind debe ser all, card, pin o qr" }), "all"),
});
/** The parsed filters; `credentialKind` absent reads as "all" (callers older than the filter). */
export type LogFilters = Omit<z.infer<typeof LogFiltersSchema>, "credentialKind"> & { credentialKind?: LogCredentialKind };

/** GET /api/logs; unknown parameters (the cache-busting `t` or `_`) are ignored. */
export const LogListQuerySchema = z.extend(LogFiltersSchema, pagingFields(LOG_API_MAX_LIMIT, LOG_PAGE_SIZE));

/** GET /api/logs/export: the filters and the format (csv, the only one). */
export const LogExportQuerySchema = z.extend(LogFiltersSchema, {
  export: z._default(z.enum(["csv"], { error: "export debe ser csv" }), "csv"),
});

/** DELETE /api/logs/cleanup: a card's denied rows (cardId is the card number, as in the log objects). */
export const LogCleanupSchema = z.object({
  cardId: z.string({ error: "cardId es requerido" }).check(z.trim(), z.minLength(1, "cardId es requerido")),
  accessGranted: z.union([z.literal(false), z.literal("false")], {
    error: "Solo se pueden eliminar registros denegados: accessGranted debe ser false",
  }),
});
