import * as z from "zod/mini";
import { requiredMultilineText, requiredText } from "./fields";

export const PUBLIC_INCIDENT_TYPES = {
  fontaneria: "Fontanería",
  electrico: "Eléctrico",
  estructural: "Estructural",
  limpieza: "Limpieza",
  seguridad: "Seguridad",
  otro: "Otro",
} as const;

export const PUBLIC_INCIDENT_URGENCIES = {
  baja: "Baja",
  media: "Media",
  alta: "Alta",
  emergencia: "Urgente",
} as const;

const REQUIRED = "Por favor completa todos los campos obligatorios";

export const PublicIncidentSchema = z.object({
  nombre: requiredText(REQUIRED, 100),
  departamento: requiredText(REQUIRED, 20),
  tipo: z.enum(Object.keys(PUBLIC_INCIDENT_TYPES) as [keyof typeof PUBLIC_INCIDENT_TYPES], { error: REQUIRED }),
  ubicacion: requiredText(REQUIRED, 200),
  descripcion: requiredMultilineText(REQUIRED, 2000),
  urgencia: z._default(z.enum(Object.keys(PUBLIC_INCIDENT_URGENCIES) as [keyof typeof PUBLIC_INCIDENT_URGENCIES], { error: REQUIRED }), "media"),
  website: z.optional(z.string()),
});

export type PublicIncidentInput = z.output<typeof PublicIncidentSchema>;
