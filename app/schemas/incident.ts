// The admin's incidents (SPEC §2 Admin incidents, §3 Admin incident, §4, §5):
// the list's filters, the create and edit forms, the status change, and the
// JSON API's queries and bodies, shared by the browser and the server.
// Browser-safe (no drizzle).
import * as z from "zod/mini";
import { INCIDENT_CATEGORIES, INCIDENT_SOURCES, INCIDENT_STATUSES, INCIDENT_TYPES, INCIDENT_URGENCIES } from "~/db/schema-enums";
import { DOOR_INCIDENT_TYPE_LABELS, URGENCY_LABELS } from "./door";
import { optionalMultilineText, optionalText, pagingFields, requiredText } from "./fields";

export { DOOR_INCIDENT_TYPE_LABELS as INCIDENT_TYPE_LABELS, URGENCY_LABELS };

export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];
export type IncidentType = (typeof INCIDENT_TYPES)[number];
export type IncidentUrgency = (typeof INCIDENT_URGENCIES)[number];
export type IncidentSource = (typeof INCIDENT_SOURCES)[number];

/** SPEC §9. */
export const INCIDENT_PAGE_SIZE = 20;
export const INCIDENT_API_MAX_LIMIT = 100;

/** SPEC §4 labels; `cancelled` is a resident's withdrawn incident. */
export const INCIDENT_STATUS_LABELS: Record<IncidentStatus, string> = {
  open: "Abierta",
  "in-progress": "En Progreso",
  resolved: "Resuelta",
  closed: "Cerrada",
  cancelled: "Cancelada",
};

/** The statuses an admin sets (the edit form, the API); `cancelled` is the resident's. */
export const ADMIN_INCIDENT_STATUSES = ["open", "in-progress", "resolved", "closed"] as const;
export type AdminIncidentStatus = (typeof ADMIN_INCIDENT_STATUSES)[number];

/** SPEC §4: the advance button's cycle. A cancelled incident has no next status. */
export const NEXT_INCIDENT_STATUS: Record<IncidentStatus, AdminIncidentStatus | null> = {
  open: "in-progress",
  "in-progress": "resolved",
  resolved: "closed",
  closed: "open",
  cancelled: null,
};

/** Residents' and public reports: what kind of fault (SPEC §4 categories). */
export const INCIDENT_CATEGORY_LABELS: Record<(typeof INCIDENT_CATEGORIES)[number], string> = {
  plumbing: "Fontanería",
  electrical: "Electricidad",
  hvac: "Climatización",
  structural: "Estructural",
  cleaning: "Limpieza",
  security: "Seguridad",
  other: "Otro",
};

export const INCIDENT_SOURCE_LABELS: Record<IncidentSource, string> = {
  door: "Puerta",
  resident: "Residente",
  public: "Aviso público",
};

/** The last 6 characters of the id (SPEC §9), as the list shows it. */
export function shortIncidentId(id: string) {
  return id.slice(-6);
}

/** SPEC §2: the title, or 'Incidencia' and the type. */
export function incidentTitle(incident: { title: string | null; type: IncidentType }) {
  return incident.title?.trim() || `Incidencia ${DOOR_INCIDENT_TYPE_LABELS[incident.type]}`;
}

const filter = <T extends readonly [string, ...string[]]>(values: T, name: string) =>
  z.optional(z.enum(values, { error: `${name} debe ser uno de: ${values.join(", ")}` }));

/**
 * The list's filters (page and API); absent means "any". `doorId` is the
 * door's hardware code (its row id is still accepted for one release).
 */
export const IncidentFiltersSchema = z.object({
  status: filter(INCIDENT_STATUSES, "status"),
  type: filter(INCIDENT_TYPES, "type"),
  urgency: filter(INCIDENT_URGENCIES, "urgency"),
  doorId: z.optional(z.string().check(z.trim(), z.maxLength(64, "doorId no es válido"))),
});
export type IncidentFilters = z.infer<typeof IncidentFiltersSchema>;

/** GET /api/incidents. */
export const IncidentListQuerySchema = z.extend(IncidentFiltersSchema, pagingFields(INCIDENT_API_MAX_LIMIT, INCIDENT_PAGE_SIZE));

const TITLE_REQUIRED = "El título es requerido";
const TYPE_REQUIRED = "El tipo es requerido";
const DOOR_REQUIRED = "La puerta es requerida";
const URGENCY_REQUIRED = "La urgencia es requerida";
const STATUS_REQUIRED = "El estado es requerido";

const title = requiredText(TITLE_REQUIRED, 200);
const type = z.enum(INCIDENT_TYPES, { error: TYPE_REQUIRED });
const urgency = z.enum(INCIDENT_URGENCIES, { error: URGENCY_REQUIRED });
const adminStatus = z.enum(ADMIN_INCIDENT_STATUSES, { error: STATUS_REQUIRED });
const description = optionalMultilineText(2000);

/** SPEC §5 create: title, type, door (`doorId`, its hardware code) and urgency (default medium) required; description optional. */
export const IncidentCreateSchema = z.object({
  title,
  type,
  doorId: requiredText(DOOR_REQUIRED, 64),
  urgency: z._default(urgency, "medium"),
  description,
});
export type IncidentCreateInput = z.output<typeof IncidentCreateSchema>;

/**
 * POST /api/incidents: the create form's fields, or a door-level report's
 * (SPEC §7: doorId, doorName, type, description, urgency, status,
 * reportedBy, reportedAt), whose title may be missing. `doorId` is the
 * door's hardware code (its row id is still accepted for one release). `doorName`,
 * `reportedBy` and `reportedAt` are accepted and ignored: the server takes
 * the door's name, the caller and the time itself.
 */
export const IncidentApiCreateSchema = z.object({
  title: optionalText(200),
  type,
  doorId: requiredText(DOOR_REQUIRED, 64),
  urgency: z._default(urgency, "medium"),
  description,
  status: z._default(adminStatus, "open"),
  doorName: z.optional(z.unknown()),
  reportedBy: z.optional(z.unknown()),
  reportedAt: z.optional(z.unknown()),
});
export type IncidentApiCreateInput = z.output<typeof IncidentApiCreateSchema>;

/** SPEC §5 edit: title, type, status and urgency required; description optional (empty clears it). */
export const IncidentEditSchema = z.object({ title, type, status: adminStatus, urgency, description });
export type IncidentEditInput = z.output<typeof IncidentEditSchema>;

/** The advance button and PUT /api/incidents/{id}/status. */
export const IncidentStatusSchema = z.object({ status: adminStatus });
