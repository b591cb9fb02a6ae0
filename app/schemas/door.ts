import * as z from "zod/mini";
import { DOOR_STATUSES, INCIDENT_TYPES, INCIDENT_URGENCIES } from "~/db/schema-enums";
import { optionalMultilineText, optionalText, requiredText } from "./fields";

export const DOOR_STATUS_LABELS = { active: "Activa", maintenance: "Mantenimiento", emergency: "Emergencia" } as const;
export const DOOR_INCIDENT_TYPE_LABELS = {
  hardware: "Hardware",
  access: "Acceso",
  network: "Red",
  maintenance: "Mantenimiento",
  other: "Otro",
} as const;
export const URGENCY_LABELS = { low: "Baja", medium: "Media", high: "Alta", critical: "Crítica" } as const;

// Printable characters the door's LCD path can carry (ASCII and Latin-1 letters,
// which the bridge transliterates); no control characters.
const PRINTABLE = /^[\x20-\x7E\u00A1-\u00FF]*$/;
const NOT_PRINTABLE = "Solo se permiten caracteres imprimibles";

const text = requiredText;

const doorFields = {
  name: text("El nombre es requerido", 80),
  location: text("La ubicación es requerida", 120),
  doorId: text("El ID de puerta es requerido", 32).check(
    z.regex(/^[A-Za-z0-9_-]{1,32}$/, "El ID de puerta solo admite letras, números, guiones y guiones bajos (máximo 32)"),
  ),
  description: optionalMultilineText(500),
  status: z.enum(DOOR_STATUSES, { error: "El estado no es válido" }),
  // The facility the door leads to (its bookings open it); empty or null: none.
  facilityId: z.optional(
    z.pipe(
      z.union([z.string().check(z.trim(), z.maxLength(64, "La instalación no es válida")), z.null()]),
      z.transform((value: string | null) => (value === "" ? null : value)),
    ),
  ),
  // A building entrance ('Acceso principal'): guests' stay keys open it.
  isEntrance: z.boolean({ error: "isEntrance debe ser verdadero o falso" }),
};

/**
 * The form's checkbox ("on", absent when unticked) and the API's boolean
 * (absent: false); anything else is refused.
 */
const entranceCheckbox = z.pipe(
  z.transform((value: unknown) => (value === "on" || value === "true" ? true : value === undefined || value === "false" ? false : value)),
  doorFields.isEntrance,
);

/** The door form and POST /api/doors: a new door is active and no entrance unless told otherwise. */
export const DoorSchema = z.object({ ...doorFields, status: z._default(doorFields.status, "active"), isEntrance: entranceCheckbox });

/**
 * PUT /api/doors/{id}: any subset of the fields, and only those change (no
 * defaults: a field not sent is a field not changed); an empty body is refused.
 */
export const DoorUpdateSchema = z
  .partial(z.object(doorFields))
  .check(z.refine((fields) => Object.values(fields).some((value) => value !== undefined), "No hay cambios que guardar"));

const customStatus = z
  .string({ error: "El mensaje de estado debe ser texto" })
  .check(z.trim(), z.maxLength(10, "El mensaje de estado admite como máximo 10 caracteres"), z.regex(PRINTABLE, NOT_PRINTABLE));
const customMessage = z
  .string({ error: "El mensaje de bienvenida debe ser texto" })
  .check(z.trim(), z.maxLength(16, "El mensaje de bienvenida admite como máximo 16 caracteres"), z.regex(PRINTABLE, NOT_PRINTABLE));

/** The form always sends both texts: an emptied one (absent once conform parses it) clears it. */
const clearedWhenEmpty = (text: typeof customStatus) =>
  z.pipe(
    z.optional(text),
    z.transform((value: string | undefined) => value || null),
  );

/** The dashboard's messages form: the checkbox and both texts, every time. */
export const DoorMessagesSchema = z.object({
  useCustomMessages: z.pipe(
    z.transform((value: unknown) => value === "on" || value === "true" || value === true),
    z.boolean(),
  ),
  customStatus: clearedWhenEmpty(customStatus),
  customMessage: clearedWhenEmpty(customMessage),
});

/**
 * PUT /api/doors/{id}/messages: any of the three, and only those change (a
 * text not sent keeps the admin's; `""` or null clears it), so custom
 * messages switched off and on again show the same texts. An empty body is refused.
 */
export const DoorMessagesUpdateSchema = z
  .object({
    useCustomMessages: z.optional(z.boolean({ error: "useCustomMessages debe ser verdadero o falso" })),
    customStatus: z.optional(z.nullable(customStatus)),
    customMessage: z.optional(z.nullable(customMessage)),
  })
  .check(z.refine((fields) => Object.values(fields).some((value) => value !== undefined), "No hay cambios que guardar"));

export const DoorIncidentSchema = z.object({
  type: z.enum(INCIDENT_TYPES, { error: "El tipo es requerido" }),
  urgency: z._default(z.enum(INCIDENT_URGENCIES, { error: "La urgencia es requerida" }), "medium"),
  title: optionalText(200),
  description: optionalMultilineText(2000),
});

export type DoorInput = z.output<typeof DoorSchema>;
export type DoorMessagesInput = z.output<typeof DoorMessagesUpdateSchema>;
export type DoorIncidentInput = z.output<typeof DoorIncidentSchema>;
