// A resident's incident report (SPEC §3 Resident incident, §5 Resident
// incident form): fields, labels and the photo limits, shared by the
// browser (conform), the page's action and the JSON API. Photos are checked
// again on the server by their bytes (app/services/resident-incidents.server.ts).
import * as z from "zod/mini";
import { INCIDENT_CATEGORIES, INCIDENT_STATUSES, INCIDENT_URGENCIES } from "~/db/schema-enums";
import { requiredMultilineText, requiredText } from "./fields";

// The labels of categories, priorities and statuses are the admin's too: ~/schemas/incident.

export type IncidentCategory = (typeof INCIDENT_CATEGORIES)[number];
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];
export type IncidentPriority = (typeof INCIDENT_URGENCIES)[number];

export const MAX_INCIDENT_PHOTOS = 5;
export const MAX_PHOTO_BYTES = 5 * 1024 * 1024;
/** What the file picker offers; the server decides by the file's bytes. */
export const PHOTO_ACCEPT = "image/jpeg,image/png,image/webp";

export const PHOTO_MESSAGES = {
  tooMany: `Puedes adjuntar como máximo ${MAX_INCIDENT_PHOTOS} fotos`,
  tooLarge: "Cada foto puede ocupar como máximo 5 MB",
  notAnImage: "Solo se admiten fotos JPEG, PNG o WebP",
} as const;

export const ResidentIncidentSchema = z.object({
  title: requiredText("El título es requerido", 200),
  category: z.enum(INCIDENT_CATEGORIES, { error: "La categoría es requerida" }),
  location: requiredText("La ubicación es requerida", 200),
  description: requiredMultilineText("La descripción es requerida", 2000),
  priority: z._default(z.enum(INCIDENT_URGENCIES, { error: "La prioridad no es válida" }), "medium"),
});

export type ResidentIncidentInput = z.output<typeof ResidentIncidentSchema>;

/**
 * PUT /api/user-portal/incidents/{id}: any of the fields, and only those
 * change (no default: a priority not sent keeps the stored one). An empty
 * body is refused.
 */
export const ResidentIncidentUpdateSchema = z
  .partial(z.extend(ResidentIncidentSchema, { priority: z.enum(INCIDENT_URGENCIES, { error: "La prioridad no es válida" }) }))
  .check(z.refine((fields) => Object.values(fields).some((value) => value !== undefined), "No hay cambios que guardar"));

export type ResidentIncidentUpdate = z.output<typeof ResidentIncidentUpdateSchema>;

const PHOTO_TYPES = new Set(PHOTO_ACCEPT.split(","));

/**
 * The report form in the browser: the fields and the photos chosen, checked
 * before they are sent (count, size, declared type).
 */
export const ResidentIncidentFormSchema = z.extend(ResidentIncidentSchema, {
  photos: z.optional(
    z
      .array(z.custom<File>((value) => typeof File !== "undefined" && value instanceof File))
      .check(
        z.maxLength(MAX_INCIDENT_PHOTOS, PHOTO_MESSAGES.tooMany),
        z.refine((files) => files.every((file) => file.size <= MAX_PHOTO_BYTES), PHOTO_MESSAGES.tooLarge),
        z.refine((files) => files.every((file) => PHOTO_TYPES.has(file.type)), PHOTO_MESSAGES.notAnImage),
      ),
  ),
});
