import { INCIDENT_CATEGORIES, incidents, type Incident } from "~/db/schema";
import type { PublicIncidentInput } from "~/schemas/public-incident";
import { createId } from "~/utils/crypto.server";
import { getDb } from "~/utils/db.server";

export type { Incident };

// docs/decisions/0002-one-incident-store.md
const PUBLIC_CATEGORY = {
  fontaneria: "plumbing",
  electrico: "electrical",
  estructural: "structural",
  limpieza: "cleaning",
  seguridad: "security",
  otro: "other",
} as const;

const PUBLIC_URGENCY = { baja: "low", media: "medium", alta: "high", emergencia: "critical" } as const;

const CATEGORY_TITLE: Record<(typeof INCIDENT_CATEGORIES)[number], string> = {
  plumbing: "Avería de fontanería",
  electrical: "Avería eléctrica",
  hvac: "Avería de climatización",
  structural: "Avería estructural",
  cleaning: "Incidencia de limpieza",
  security: "Incidencia de seguridad",
  other: "Avería",
};

/** A fault reported on /incidencias by someone without an account. */
export async function createPublicIncident(input: Omit<PublicIncidentInput, "website">) {
  const category = PUBLIC_CATEGORY[input.tipo];
  const [incident] = await getDb()
    .insert(incidents)
    .values({
      id: createId(),
      source: "public",
      title: `${CATEGORY_TITLE[category]} · ${input.ubicacion}`.slice(0, 200),
      type: category === "other" ? "other" : "maintenance",
      category,
      urgency: PUBLIC_URGENCY[input.urgencia],
      description: input.descripcion,
      location: input.ubicacion,
      reporterName: input.nombre,
      reportedBy: input.nombre,
      floor: input.departamento,
      reportedAt: new Date(),
    })
    .returning();
  return incident!;
}

const DOOR_INCIDENT_TITLE = {
  hardware: "Fallo de hardware",
  access: "Problema de acceso",
  network: "Problema de red",
  maintenance: "Mantenimiento",
  other: "Incidencia",
} as const;

/** An incident an admin reports on a door from the dashboard. */
export async function createDoorIncident(input: {
  door: { id: string; name: string };
  type: Incident["type"];
  urgency: Incident["urgency"];
  title?: string | null;
  description?: string | null;
  reportedBy: { id: string; username: string };
}) {
  const [incident] = await getDb()
    .insert(incidents)
    .values({
      id: createId(),
      source: "door",
      title: input.title || `${DOOR_INCIDENT_TITLE[input.type]} · ${input.door.name}`,
      type: input.type,
      urgency: input.urgency,
      description: input.description || null,
      doorId: input.door.id,
      doorName: input.door.name,
      reportedById: input.reportedBy.id,
      reportedBy: input.reportedBy.username,
      reportedAt: new Date(),
    })
    .returning();
  return incident!;
}
