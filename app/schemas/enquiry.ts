// Enquiry and visit-request forms (both become a consultation).
import * as z from "zod/mini";
import { addDays } from "~/utils/dates";
import { builtOncePerDay, email, isoDay, optionalMultilineText, requiredMultilineText, requiredText } from "./fields";

export const VISIT_HOURS = ["10:00", "11:00", "12:00", "16:00", "17:00", "18:00"] as const;

/** Visits are requested at least a day ahead and at most this many days ahead. */
export const VISIT_MAX_DAYS_AHEAD = 90;

const ENQUIRY_REQUIRED = "Por favor completa todos los campos";
const VISIT_REQUIRED = "Por favor completa todos los campos obligatorios";
const INVALID_EMAIL = "Por favor ingresa un email válido";
const CAPTCHA_EXPIRED = "La verificación anti-spam ha caducado. Responde a la nueva pregunta.";

const captchaFields = (required: string) => ({
  captchaId: z.string({ error: CAPTCHA_EXPIRED }).check(z.trim(), z.minLength(1, CAPTCHA_EXPIRED), z.maxLength(200, CAPTCHA_EXPIRED)),
  captchaAnswer: z
    .string({ error: required })
    .check(z.trim(), z.minLength(1, required), z.regex(/^-?\d{1,4}$/, "La respuesta debe ser un número")),
  // Accepted for compatibility and ignored: the server knows its own question.
  captchaQuestion: z.optional(z.string().check(z.maxLength(200))),
  // Honeypot: people never see it, bots fill it in.
  website: z.optional(z.string().check(z.maxLength(500))),
});

export const EnquirySchema = z.object({
  nombre: requiredText(ENQUIRY_REQUIRED, 100),
  email: email({ required: ENQUIRY_REQUIRED, invalid: INVALID_EMAIL }),
  telefono: requiredText(ENQUIRY_REQUIRED, 30),
  mensaje: requiredMultilineText(ENQUIRY_REQUIRED, 2000),
  ...captchaFields(ENQUIRY_REQUIRED),
});

/** The visit form's schema for a day in the building ("YYYY-MM-DD"): tomorrow to 90 days ahead. */
export const createVisitSchema = builtOncePerDay((today) => {
  const tomorrow = addDays(today, 1);
  const lastDay = addDays(today, VISIT_MAX_DAYS_AHEAD);
  return z.object({
    nombre: requiredText(VISIT_REQUIRED, 100),
    email: email({ required: VISIT_REQUIRED, invalid: INVALID_EMAIL }),
    telefono: requiredText(VISIT_REQUIRED, 30),
    fecha: isoDay(VISIT_REQUIRED).check(
      z.refine((day) => day >= tomorrow, "Las visitas se solicitan con al menos un día de antelación"),
      z.refine((day) => day <= lastDay, `Las visitas se solicitan con un máximo de ${VISIT_MAX_DAYS_AHEAD} días de antelación`),
    ),
    hora: z.enum(VISIT_HOURS, { error: VISIT_REQUIRED }),
    comentarios: optionalMultilineText(1000),
    ...captchaFields(VISIT_REQUIRED),
  });
});

export type EnquiryInput = z.output<typeof EnquirySchema>;
export type VisitInput = z.output<ReturnType<typeof createVisitSchema>>;
