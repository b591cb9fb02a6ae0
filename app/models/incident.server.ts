import { and, desc, eq, sql } from "drizzle-orm";
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

/** A resident's report from the portal; `photos` are the names of its stored photo files. */
export async function createResidentIncident(input: {
  reporter: { id: string; username: string; name: string | null; unitNumber: string | null };
  title: string;
  category: (typeof INCIDENT_CATEGORIES)[number];
  location: string;
  description: string;
  priority: Incident["urgency"];
  photos: string[];
}) {
  const [incident] = await getDb()
    .insert(incidents)
    .values({
      id: createId(),
      source: "resident",
      title: input.title,
      type: input.category === "other" ? "other" : "maintenance",
      category: input.category,
      urgency: input.priority,
      description: input.description,
      location: input.location,
      reportedById: input.reporter.id,
      reportedBy: input.reporter.username,
      reporterName: input.reporter.name,
      floor: input.reporter.unitNumber,
      photos: input.photos,
      reportedAt: new Date(),
    })
    .returning();
  return incident!;
}

/** The incidents the user reported, newest first. */
export async function listIncidentsOfReporter(userId: string, limit = 50) {
  return getDb()
    .select()
    .from(incidents)
    .where(eq(incidents.reportedById, userId))
    .orderBy(desc(incidents.reportedAt), desc(incidents.id))
    .limit(limit);
}

/** The user's incident with this id; undefined when they did not report it. */
export async function getIncidentOfReporter(userId: string, id: string) {
  return getDb().query.incidents.findFirst({ where: and(eq(incidents.id, id), eq(incidents.reportedById, userId)) });
}

export async function getIncidentById(id: string) {
  return getDb().query.incidents.findFirst({ where: eq(incidents.id, id) });
}

export type ResidentIncidentFields = Pick<Incident, "title" | "category" | "location" | "description" | "urgency">;

/** Changes the reporter's incident while it is open; undefined when it is not theirs or not open. */
export async function updateOpenIncidentOfReporter(userId: string, id: string, fields: ResidentIncidentFields) {
  const [row] = await getDb()
    .update(incidents)
    .set({ ...fields, type: fields.category === "other" ? "other" : "maintenance", updatedAt: new Date() })
    .where(and(eq(incidents.id, id), eq(incidents.reportedById, userId), eq(incidents.status, "open")))
    .returning();
  return row;
}

/** Cancels the reporter's incident while it is open; undefined when it is not theirs or not open. */
export async function cancelOpenIncidentOfReporter(userId: string, id: string) {
  const [row] = await getDb()
    .update(incidents)
    .set({ status: "cancelled", updatedAt: new Date() })
    .where(and(eq(incidents.id, id), eq(incidents.reportedById, userId), eq(incidents.status, "open")))
    .returning();
  return row;
}

/** Sets any incident's status (admins); undefined when there is no such incident. */
export async function setIncidentStatus(id: string, status: Incident["status"]) {
  const [row] = await getDb().update(incidents).set({ status, updatedAt: new Date() }).where(eq(incidents.id, id)).returning();
  return row;
}

/**
 * Whether the incident has a photo with this file name, seen by `viewerId`:
 * its reporter, or anyone when viewerId is null (admins).
 */
export async function incidentHasPhoto(id: string, photoName: string, viewerId: string | null) {
  const [row] = await getDb()
    .select({ id: incidents.id })
    .from(incidents)
    .where(
      and(
        eq(incidents.id, id),
        viewerId === null ? undefined : eq(incidents.reportedById, viewerId),
        sql`EXISTS (SELECT 1 FROM json_each(${incidents.photos}) WHERE value = ${photoName})`,
      ),
    )
    .limit(1);
  return Boolean(row);
}
