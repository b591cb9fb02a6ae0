// The access log's filters (page and JSON API), the API's queries and bodies,
// and the Spanish labels. Browser-safe (no drizzle).
import { z } from "zod";

/** SPEC §9. */
export const LOG_PAGE_SIZE = 50;
export const LOG_API_MAX_LIMIT = 200;
/** SPEC §9: rows of the same card, door and result within this window show as one. */
export const LOG_MERGE_WINDOW_MS = 5 * 60_000;
export const LOG_SEARCH_MAX_LENGTH = 64;

export const LOG_STATUSES = ["all", "granted", "denied"] as const;
export type LogStatus = (typeof LOG_STATUSES)[number];

/** SPEC §9: the first is the default. */
export const LOG_DATE_RANGES = ["24h", "7d", "30d", "all"] as const;
export type LogDateRange = (typeof LOG_DATE_RANGES)[number];

export const LOG_STATUS_LABELS: Record<LogStatus, string> = {
  all: "Todos",
  granted: "Concedidos",
  denied: "Denegados",
};

export const LOG_DATE_RANGE_LABELS: Record<LogDateRange, string> = {
  "24h": "Últimas 24 horas",
  "7d": "Últimos 7 días",
  "30d": "Últimos 30 días",
  all: "Todo el historial",
};

export const ACCESS_RESULT_LABELS = { granted: "Concedido", denied: "Denegado" } as const;

export const LogFiltersSchema = z.object({
  status: z.enum(LOG_STATUSES, { error: "status debe ser all, granted o denied" }).default("all"),
  /** The door's row id (`_id` of /api/doors); empty = every door. */
  doorId: z.string().trim().max(64, "doorId no es válido").default(""),
  dateRange: z.enum(LOG_DATE_RANGES, { error: "dateRange debe ser 24h, 7d, 30d o all" }).default("24h"),
  /** A card number prefix (any usual notation) or a username prefix. */
  search: z.string().trim().max(LOG_SEARCH_MAX_LENGTH, `La búsqueda admite como máximo ${LOG_SEARCH_MAX_LENGTH} caracteres`).default(""),
});
export type LogFilters = z.infer<typeof LogFiltersSchema>;

const pageMessage = "page debe ser un número entero mayor que 0";
const limitMessage = `limit debe ser un número entre 1 y ${LOG_API_MAX_LIMIT}`;

/** GET /api/logs; unknown parameters (the cache-busting `t` or `_`) are ignored. */
export const LogListQuerySchema = LogFiltersSchema.extend({
  page: z.coerce.number({ error: pageMessage }).int(pageMessage).min(1, pageMessage).default(1),
  limit: z.coerce.number({ error: limitMessage }).int(limitMessage).min(1, limitMessage).max(LOG_API_MAX_LIMIT, limitMessage).default(LOG_PAGE_SIZE),
});

/** GET /api/logs/export: the filters and the format (csv, the only one). */
export const LogExportQuerySchema = LogFiltersSchema.extend({
  export: z.enum(["csv"], { error: "export debe ser csv" }).default("csv"),
});

/** DELETE /api/logs/cleanup: a card's denied rows (cardId is the card number, as in the log objects). */
export const LogCleanupSchema = z.object({
  cardId: z.string({ error: "cardId es requerido" }).trim().min(1, "cardId es requerido"),
  accessGranted: z.union([z.literal(false), z.literal("false")], {
    error: "Solo se pueden eliminar registros denegados: accessGranted debe ser false",
  }),
});
