// The admin's consultations (SPEC §2 Admin consultations, §3, §5, §9): the
// list's filters, the status and notes forms and the JSON API's bodies.
// Browser-safe (no drizzle).
import * as z from "zod/mini";
import { CONSULTATION_STATUSES } from "~/db/schema-enums";
import { multilineText, pagingFields, text } from "./fields";

export type ConsultationStatus = (typeof CONSULTATION_STATUSES)[number];

/** SPEC §9. */
export const CONSULTATION_PAGE_SIZE = 20;
export const CONSULTATION_API_MAX_LIMIT = 100;
export const CONSULTATION_SEARCH_DEBOUNCE_MS = 500;
export const MESSAGE_PREVIEW_LENGTH = 50;
export const CONSULTATION_SEARCH_MAX_LENGTH = 100;
export const ADMIN_NOTES_MAX_LENGTH = 2000;

export const CONSULTATION_STATUS_LABELS: Record<ConsultationStatus, string> = {
  pending: "Pendiente",
  read: "Leída",
  replied: "Respondida",
  closed: "Cerrada",
};

/** SPEC §2: the first 50 characters and '...' when there is more. */
export function messagePreview(message: string) {
  const characters = Array.from(message);
  return characters.length > MESSAGE_PREVIEW_LENGTH ? `${characters.slice(0, MESSAGE_PREVIEW_LENGTH).join("")}...` : message;
}

const STATUS_MESSAGE = `status debe ser uno de: ${CONSULTATION_STATUSES.join(", ")}`;
const status = z.enum(CONSULTATION_STATUSES, { error: STATUS_MESSAGE });

/** The list's filters (page and API): a status, and text the name, email or message contains. */
export const ConsultationFiltersSchema = z.object({
  status: z.optional(status),
  search: z.optional(text(CONSULTATION_SEARCH_MAX_LENGTH)),
});
export type ConsultationFilters = z.infer<typeof ConsultationFiltersSchema>;

/** GET /api/consultations. */
export const ConsultationListQuerySchema = z.extend(ConsultationFiltersSchema, pagingFields(CONSULTATION_API_MAX_LIMIT, CONSULTATION_PAGE_SIZE));

/** The row's status select and the details modal's. */
export const ConsultationStatusSchema = z.object({ status });

/** The details modal's notes; empty clears them. */
export const ConsultationNotesSchema = z.object({ adminNotes: z.optional(multilineText(ADMIN_NOTES_MAX_LENGTH)) });

/** PUT /api/consultations/{id}/status: `status`, or `adminNotes` alone (null or "" clears them), or both. */
export const ConsultationUpdateSchema = z
  .object({ status: z.optional(status), adminNotes: z.optional(z.nullable(multilineText(ADMIN_NOTES_MAX_LENGTH))) })
  .check(
    z.refine((value) => value.status !== undefined || value.adminNotes !== undefined, {
      message: "Indica el estado o las notas (status o adminNotes)",
    }),
  );
export type ConsultationUpdate = z.output<typeof ConsultationUpdateSchema>;
