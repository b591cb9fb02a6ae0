// A resident's visitor pass (issue 29, docs/access-keys.md): the portal's
// 'Invitar a una visita' form and POST /api/user-portal/visitor-passes, one
// schema for both; and the admin's list filters. The rules that need a clock
// or the database (the next 30 days, doors the resident can open then, at
// most MAX_ACTIVE_VISITOR_PASSES) are the service's.
import * as z from "zod/mini";
import { email, isoDay, pagingFields, requiredText, timeOfDay } from "./fields";

export const VISITOR_PASS_STATUSES = ["active", "used", "cancelled", "expired"] as const;
export type VisitorPassStatus = (typeof VISITOR_PASS_STATUSES)[number];

export const VISITOR_PASS_STATUS_LABELS: Record<VisitorPassStatus, string> = {
  active: "Activa",
  used: "Usada",
  cancelled: "Anulada",
  expired: "Caducada",
};

/** A pass lasts this long at most… */
export const MAX_VISITOR_PASS_HOURS = 12;
/** …on a day within this many days from today. */
export const MAX_VISITOR_PASS_DAYS_AHEAD = 30;

export const VISITOR_PASS_MESSAGES = {
  visitorName: "El nombre de la visita es requerido",
  visitorEmailRequired: "El email de la visita es requerido",
  visitorEmailInvalid: "El email de la visita no es válido",
  date: "La fecha no es válida",
  startTime: "La hora de inicio no es válida",
  endTime: "La hora de fin no es válida",
  endBeforeStart: "La hora de fin debe ser posterior a la de inicio",
  tooLong: `Una invitación dura como máximo ${MAX_VISITOR_PASS_HOURS} horas`,
  doorIds: "Las puertas no son válidas",
} as const;

const minutes = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

export const VisitorPassSchema = z
  .object({
    visitorName: requiredText(VISITOR_PASS_MESSAGES.visitorName, 100),
    visitorEmail: email({ required: VISITOR_PASS_MESSAGES.visitorEmailRequired, invalid: VISITOR_PASS_MESSAGES.visitorEmailInvalid }),
    date: isoDay(VISITOR_PASS_MESSAGES.date),
    startTime: timeOfDay(VISITOR_PASS_MESSAGES.startTime),
    endTime: timeOfDay(VISITOR_PASS_MESSAGES.endTime),
    /** Door codes (or row ids); absent or empty: the building entrances. */
    doorIds: z.optional(
      z.pipe(
        // A form sends one value as a string, none at all when nothing is ticked.
        z.transform((value: unknown) => (typeof value === "string" ? (value === "" ? [] : [value]) : value === null ? [] : value)),
        z.array(z.string().check(z.trim(), z.minLength(1, VISITOR_PASS_MESSAGES.doorIds), z.maxLength(64, VISITOR_PASS_MESSAGES.doorIds)), { error: VISITOR_PASS_MESSAGES.doorIds }).check(z.maxLength(50, VISITOR_PASS_MESSAGES.doorIds)),
      ),
    ),
  })
  .check(
    z.superRefine((value, ctx) => {
      const span = minutes(value.endTime) - minutes(value.startTime);
      if (span <= 0) ctx.addIssue({ code: "custom", message: VISITOR_PASS_MESSAGES.endBeforeStart, path: ["endTime"], input: value.endTime });
      else if (span > MAX_VISITOR_PASS_HOURS * 60) ctx.addIssue({ code: "custom", message: VISITOR_PASS_MESSAGES.tooLong, path: ["endTime"], input: value.endTime });
    }),
  );
export type VisitorPassInput = z.infer<typeof VisitorPassSchema>;

/** GET /api/visitor-passes and /admin/invitaciones: status, a resident (user id), text in the visitor's or resident's name. */
export const VisitorPassFiltersSchema = z.object({
  status: z._default(z.enum(["all", ...VISITOR_PASS_STATUSES], { error: "status debe ser all, active, used, cancelled o expired" }), "all"),
  userId: z.optional(z.string().check(z.trim(), z.maxLength(64))),
  search: z.optional(z.string().check(z.trim(), z.maxLength(100))),
});
export type VisitorPassFilters = z.infer<typeof VisitorPassFiltersSchema>;

export const VISITOR_PASS_PAGE_SIZE = 20;
/** GET /api/visitor-passes: the filters and the page. */
export const VisitorPassListQuerySchema = z.extend(VisitorPassFiltersSchema, pagingFields(100, VISITOR_PASS_PAGE_SIZE));
