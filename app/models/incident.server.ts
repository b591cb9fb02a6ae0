// The one incident store (docs/decisions/0002-one-incident-store.md): public
// fault reports, door incidents, and the admin's list over all of them.
// Residents' own reads and writes live beside these (their queries are
// scoped to the reporter).
import { and, desc, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import { doors, INCIDENT_CATEGORIES, incidents, users, type Incident } from "~/db/schema";
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

/** An incident an admin reports on a door (the dashboard, the incidents screen, the API). */
export async function createDoorIncident(input: {
  door: { id: string; name: string };
  type: Incident["type"];
  urgency: Incident["urgency"];
  status?: Incident["status"];
  title?: string | null;
  description?: string | null;
  /** An admin, or the system (id null) for an incident opened by a door alarm. */
  reportedBy: { id: string | null; username: string };
}) {
  const [incident] = await getDb()
    .insert(incidents)
    .values({
      id: createId(),
      source: "door",
      title: input.title || `${DOOR_INCIDENT_TITLE[input.type]} · ${input.door.name}`,
      type: input.type,
      urgency: input.urgency,
      status: input.status ?? "open",
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

/** How many incidents the user reported from `since` on (cancelled ones too). */
export async function countIncidentsOfReporterSince(userId: string, since: Date) {
  const [row] = await getDb()
    .select({ n: sql<number>`count(*)` })
    .from(incidents)
    .where(and(eq(incidents.reportedById, userId), gte(incidents.reportedAt, since)));
  return Number(row?.n ?? 0);
}

/**
 * A resident's report from the portal; `photos` are the names of its stored
 * photo files. Refused ("limit") when the reporter already reported `max`
 * incidents from `since` on. The count and the insert are one statement, so
 * simultaneous reports cannot go past the limit.
 */
export async function createResidentIncident(
  input: {
    reporter: { id: string; username: string; name: string | null; unitNumber: string | null };
    title: string;
    category: (typeof INCIDENT_CATEGORIES)[number];
    location: string;
    description: string;
    priority: Incident["urgency"];
    photos: string[];
  },
  { max, since, now = new Date() }: { max: number; since: Date; now?: Date },
): Promise<{ ok: true; incident: Incident } | { ok: false; reason: "limit" }> {
  const id = createId();
  const type = input.category === "other" ? "other" : "maintenance";
  const inserted = await getDb().run(sql`
    INSERT INTO incidents (id, source, title, type, category, urgency, description, location,
                           reported_by_id, reported_by, reporter_name, floor, photos, reported_at)
    SELECT ${id}, 'resident', ${input.title}, ${type}, ${input.category}, ${input.priority}, ${input.description}, ${input.location},
           ${input.reporter.id}, ${input.reporter.username}, ${input.reporter.name}, ${input.reporter.unitNumber},
           ${JSON.stringify(input.photos)}, ${now.getTime()}
    WHERE (SELECT count(*) FROM incidents WHERE reported_by_id = ${input.reporter.id} AND reported_at >= ${since.getTime()}) < ${max}`);
  if (inserted.rowsAffected === 0) return { ok: false, reason: "limit" };
  const incident = await getDb().query.incidents.findFirst({ where: eq(incidents.id, id) });
  return { ok: true, incident: incident! };
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

export type ResidentIncidentFields = Pick<Incident, "title" | "category" | "location" | "description" | "urgency">;

/**
 * Changes the fields given of the reporter's incident while it is open (a new
 * category sets the type with it); undefined when it is not theirs or not open.
 */
export async function updateOpenIncidentOfReporter(userId: string, id: string, fields: Partial<ResidentIncidentFields>) {
  const type = fields.category === undefined ? {} : { type: fields.category === "other" ? ("other" as const) : ("maintenance" as const) };
  const [row] = await getDb()
    .update(incidents)
    .set({ ...fields, ...type, updatedAt: new Date() })
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

/** What the admin's list filters on; `doorId` is a door row id. */
export type IncidentCriteria = {
  status?: Incident["status"];
  type?: Incident["type"];
  urgency?: Incident["urgency"];
  doorId?: string;
};

function criteriaConditions({ status, type, urgency, doorId }: IncidentCriteria): SQL | undefined {
  const conditions: SQL[] = [];
  if (status) conditions.push(eq(incidents.status, status));
  if (type) conditions.push(eq(incidents.type, type));
  if (urgency) conditions.push(eq(incidents.urgency, urgency));
  if (doorId) conditions.push(eq(incidents.doorId, doorId));
  return conditions.length ? and(...conditions) : undefined;
}

/** The reporting resident's name and unit (residents' incidents). */
const reporterColumns = {
  id: users.id,
  username: users.username,
  firstName: users.firstName,
  lastName: users.lastName,
  unitNumber: users.unitNumber,
};

/** An incident with its reporter and its door's hardware code now (null without a door, or once it is deleted). */
export type IncidentWithReporter = Incident & {
  reporter: { id: string; username: string; firstName: string | null; lastName: string | null; unitNumber: string | null } | null;
  doorCode: string | null;
};

const withReporterColumns = { incident: incidents, reporter: reporterColumns, doorCode: doors.code };

function withReporter(row: { incident: Incident; reporter: IncidentWithReporter["reporter"]; doorCode: string | null }): IncidentWithReporter {
  return { ...row.incident, reporter: row.reporter?.id ? row.reporter : null, doorCode: row.doorCode };
}

const newestFirst = [desc(incidents.reportedAt), desc(sql`${incidents}.rowid`)];

/**
 * One page of the list, newest report first. The page's rows are picked by
 * rowid from one index range (an OFFSET skips index entries only), then read
 * with their reporter.
 */
export async function listIncidents(criteria: IncidentCriteria, { limit, offset }: { limit: number; offset: number }) {
  const db = getDb();
  const page = db
    .select({ rowid: sql`rowid` })
    .from(incidents)
    .where(criteriaConditions(criteria))
    .orderBy(desc(incidents.reportedAt), desc(sql`rowid`))
    .limit(limit)
    .offset(offset);
  const rows = await db
    .select(withReporterColumns)
    .from(incidents)
    .leftJoin(users, eq(users.id, incidents.reportedById))
    .leftJoin(doors, eq(doors.id, incidents.doorId))
    .where(sql`${incidents}.rowid IN ${page}`)
    .orderBy(...newestFirst);
  return rows.map(withReporter);
}

export type IncidentStatusCounts = Record<Incident["status"], number> & { total: number };

/** How many incidents of each status match the criteria other than the status. */
export async function countIncidentsByStatus(criteria: IncidentCriteria): Promise<IncidentStatusCounts> {
  const rows = await getDb()
    .select({ status: incidents.status, count: sql<number>`count(*)` })
    .from(incidents)
    .where(criteriaConditions({ ...criteria, status: undefined }))
    .groupBy(incidents.status);
  const counts: IncidentStatusCounts = { total: 0, open: 0, "in-progress": 0, resolved: 0, closed: 0, cancelled: 0 };
  for (const row of rows) {
    counts[row.status] = Number(row.count);
    counts.total += Number(row.count);
  }
  return counts;
}

export async function getIncidentById(id: string): Promise<IncidentWithReporter | null> {
  const [row] = await getDb()
    .select(withReporterColumns)
    .from(incidents)
    .leftJoin(users, eq(users.id, incidents.reportedById))
    .leftJoin(doors, eq(doors.id, incidents.doorId))
    .where(eq(incidents.id, id))
    .limit(1);
  return row ? withReporter(row) : null;
}

export type IncidentFields = Partial<Pick<Incident, "title" | "type" | "status" | "urgency" | "description">>;

/** Changes the given fields; null when there is no such incident. */
export async function updateIncident(id: string, fields: IncidentFields, now = new Date()) {
  const [row] = await getDb()
    .update(incidents)
    .set({ ...fields, updatedAt: now })
    .where(eq(incidents.id, id))
    .returning();
  return row ?? null;
}

/** Deletes the incident; answers its title and the names of its photo files (for the caller to delete), or null. */
export async function deleteIncident(id: string) {
  const [row] = await getDb()
    .delete(incidents)
    .where(eq(incidents.id, id))
    .returning({ id: incidents.id, title: incidents.title, photos: incidents.photos });
  return row ?? null;
}

/** Privacy: closed public fault reports last changed before `before`. Answers how many went. */
export async function purgeClosedPublicIncidents(before: Date) {
  const result = await getDb()
    .delete(incidents)
    .where(and(eq(incidents.source, "public"), eq(incidents.status, "closed"), lt(incidents.updatedAt, before)));
  return result.rowsAffected;
}

/** The names of every photo file some incident refers to. */
export async function listReferencedPhotoNames() {
  const rows = await getDb().all<{ name: string }>(
    sql`SELECT DISTINCT photo.value AS name FROM ${incidents}, json_each(${incidents.photos}) AS photo WHERE ${incidents.photos} IS NOT NULL`,
  );
  return new Set(rows.map((row) => row.name));
}
