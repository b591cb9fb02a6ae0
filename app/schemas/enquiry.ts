// Enquiry and visit-request forms (both become a consultation).
import { z } from "zod";
import { EMAIL_PATTERN } from "./reservation";

export const VISIT_HOURS = ["10:00", "11:00", "12:00", "16:00", "17:00", "18:00"] as const;

const ENQUIRY_REQUIRED = "Por favor completa todos los campos";
const VISIT_REQUIRED = "Por favor completa todos los campos obligatorios";
const INVALID_EMAIL = "Por favor ingresa un email válido";

function text(message: string, max: number) {
  return z.string({ error: message }).trim().min(1, message).max(max, `Máximo ${max} caracteres`);
}

const captchaFields = (required: string) => ({
  captchaId: z.string({ error: "La verificación anti-spam ha caducado. Responde a la nueva pregunta." }).uuid("La verificación anti-spam ha caducado. Responde a la nueva pregunta."),
  captchaAnswer: z
    .string({ error: required })
    .trim()
    .min(1, required)
    .regex(/^-?\d{1,4}$/, "La respuesta debe ser un número"),
  // Accepted for compatibility and ignored: the server knows its own question.
  captchaQuestion: z.string().optional(),
  // Honeypot: people never see it, bots fill it in.
  website: z.string().optional(),
});

export const EnquirySchema = z.object({
  nombre: text(ENQUIRY_REQUIRED, 100),
  email: text(ENQUIRY_REQUIRED, 254).regex(EMAIL_PATTERN, INVALID_EMAIL).transform((e) => e.toLowerCase()),
  telefono: text(ENQUIRY_REQUIRED, 30),
  mensaje: text(ENQUIRY_REQUIRED, 2000),
  ...captchaFields(ENQUIRY_REQUIRED),
});

export function createVisitSchema({ tomorrow }: { tomorrow: string }) {
  return z.object({
    nombre: text(VISIT_REQUIRED, 100),
    email: text(VISIT_REQUIRED, 254).regex(EMAIL_PATTERN, INVALID_EMAIL).transform((e) => e.toLowerCase()),
    telefono: text(VISIT_REQUIRED, 30),
    fecha: z
      .string({ error: VISIT_REQUIRED })
      .regex(/^\d{4}-\d{2}-\d{2}$/, VISIT_REQUIRED)
      .refine((day) => day >= tomorrow, "Las visitas se solicitan con al menos un día de antelación"),
    hora: z.enum(VISIT_HOURS, { error: VISIT_REQUIRED }),
    comentarios: z.string().trim().max(1000, "Máximo 1000 caracteres").optional(),
    ...captchaFields(VISIT_REQUIRED),
  });
}

export type EnquiryInput = z.output<typeof EnquirySchema>;
export type VisitInput = z.output<ReturnType<typeof createVisitSchema>>;
