// Residents' incidents (SPEC §3 Resident incident), for the portal and its
// JSON API. They are stored in the one incident store (ADR 0002), so the
// admins see them with the others. A resident edits or cancels an incident
// only while it is open. Photos: at most 5, 5 MB each, JPEG, PNG or WebP by
// their decoded header; stored under the data directory with random names and served
// only to their reporter and to admins. A refused photo stores nothing.
import * as incidentModel from "~/models/incident.server";
import type { Incident } from "~/models/incident.server";
import { deletePhotoFiles, listPhotoFiles, readPhotoHeader, readPhotoFile, savePhotoFiles, type PhotoType } from "~/models/incident-photo.server";
import type { User } from "~/models/user.server";
import {
  MAX_INCIDENT_PHOTOS,
  MAX_PHOTO_BYTES,
  PHOTO_MESSAGES,
  type IncidentCategory,
  type ResidentIncidentInput,
  type ResidentIncidentUpdate,
} from "~/schemas/resident-incident";
import { newIncidentStaffMail } from "~/mail/staff-mail.server";
import { addDays, madridInstant, todayInMadrid } from "~/utils/dates";
import { getEnv } from "~/utils/env.server";
import { trySendStaffNotice } from "~/utils/mail.server";
import type { UploadedPhoto } from "~/utils/photo-upload.server";
import { refuse, type Result } from "~/utils/refusal.server";
import { audited, changedFields } from "./audit.server";
import { INCIDENT_NOT_FOUND, incidentFieldsOf, incidentPhotoUrl } from "./incidents.server";

/** The fields given (an API edit sends only those to change). */
function definedOnly<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}

export const PHOTO_NOT_FOUND = "Foto no encontrada";

/** SPEC §3 resident incident (also read as type, doorName, urgency), as the portal and the API see it. */
export function toResidentIncidentJson(incident: Incident) {
  return {
    _id: incident.id,
    title: incident.title,
    category: incident.category as IncidentCategory | null,
    location: incident.location,
    description: incident.description,
    priority: incident.urgency,
    status: incident.status,
    photos: (incident.photos ?? []).map((name) => incidentPhotoUrl(incident.id, name)),
    editable: incident.status === "open",
    createdAt: incident.reportedAt.toISOString(),
    type: incident.type,
    doorName: incident.doorName,
    urgency: incident.urgency,
  };
}
export type ResidentIncidentJson = ReturnType<typeof toResidentIncidentJson>;

export async function listResidentIncidents(user: Pick<User, "id">) {
  return (await incidentModel.listIncidentsOfReporter(user.id)).map(toResidentIncidentJson);
}

/** The resident's incident with this id; 404 when they did not report it. */
export async function getResidentIncident(user: Pick<User, "id">, id: string): Promise<Result<{ incident: ResidentIncidentJson }>> {
  const incident = await incidentModel.getIncidentOfReporter(user.id, id);
  return incident ? { ok: true, incident: toResidentIncidentJson(incident) } : refuse(404, INCIDENT_NOT_FOUND);
}

/** The photos' types by their bytes, or the refusal of the first that breaks a rule. */
function checkPhotos(photos: UploadedPhoto[]): Result<{ typed: { bytes: Uint8Array; type: PhotoType }[] }> {
  if (photos.length > MAX_INCIDENT_PHOTOS) return refuse(413, PHOTO_MESSAGES.tooMany, { field: "photos" });
  const typed: { bytes: Uint8Array; type: PhotoType }[] = [];
  for (const photo of photos) {
    if (photo.bytes.length > MAX_PHOTO_BYTES) return refuse(413, `${photo.filename}: ${PHOTO_MESSAGES.tooLarge}`, { field: "photos" });
    const header = readPhotoHeader(photo.bytes);
    if (!header) return refuse(415, `${photo.filename}: ${PHOTO_MESSAGES.notAnImage}`, { field: "photos" });
    typed.push({ bytes: photo.bytes, type: header.type });
  }
  return { ok: true, typed };
}

type Reporter = Pick<User, "id" | "username" | "firstName" | "lastName" | "unitNumber">;

/** The building's calendar day of `now`: when it started, and how long until the next one starts. */
function reportingDay(now: Date) {
  const today = todayInMadrid(now);
  const since = madridInstant(today, "00:00")!;
  const next = madridInstant(addDays(today, 1), "00:00")!;
  return { since, retryAfterSeconds: Math.max(1, Math.ceil((next.getTime() - now.getTime()) / 1000)) };
}

function tooManyIncidents(max: number, retryAfterSeconds: number) {
  const incidents = max === 1 ? "1 incidencia" : `${max} incidencias`;
  return refuse(429, `Ya has reportado ${incidents} hoy, el máximo por residente. Podrás reportar más mañana; si es urgente, avisa a la administración.`, {
    retryAfterSeconds,
  });
}

/**
 * Stores the report and its photos, all or nothing. A resident reports at
 * most MAX_INCIDENTS_PER_DAY incidents per day (Europe/Madrid): each one
 * mails the staff.
 */
export async function reportResidentIncident(
  user: Reporter,
  input: ResidentIncidentInput,
  photos: UploadedPhoto[] = [],
  now = new Date(),
): Promise<Result<{ incident: ResidentIncidentJson }>> {
  const max = getEnv().MAX_INCIDENTS_PER_DAY;
  const { since, retryAfterSeconds } = reportingDay(now);
  // Checked again with the insert; this spares writing photos that would be refused.
  if ((await incidentModel.countIncidentsOfReporterSince(user.id, since)) >= max) return tooManyIncidents(max, retryAfterSeconds);
  const checked = checkPhotos(photos);
  if (!checked.ok) return checked;
  const names = await savePhotoFiles(checked.typed);
  let created: Awaited<ReturnType<typeof incidentModel.createResidentIncident>>;
  try {
    const name = [user.firstName, user.lastName].filter(Boolean).join(" ") || null;
    created = await audited(async (audit) => {
      const stored = await incidentModel.createResidentIncident(
        { reporter: { id: user.id, username: user.username, name, unitNumber: user.unitNumber }, ...input, photos: names },
        { max, since, now },
      );
      if (stored.ok) {
        audit({
          action: "incident.create",
          entityType: "incident",
          entityId: stored.incident.id,
          summary: `informó de la incidencia «${stored.incident.title}»`,
          after: { ...incidentFieldsOf(stored.incident), photos: names.length },
        });
      }
      return stored;
    });
  } catch (error) {
    await deletePhotoFiles(names);
    throw error;
  }
  if (!created.ok) {
    await deletePhotoFiles(names);
    return tooManyIncidents(max, retryAfterSeconds);
  }
  await trySendStaffNotice(newIncidentStaffMail(created.incident));
  return { ok: true, incident: toResidentIncidentJson(created.incident) };
}

/** Refusal for an incident the resident may not change: not theirs (404) or no longer open (409). */
async function notChangeable(user: Pick<User, "id">, id: string, verb: "editar" | "cancelar") {
  const incident = await incidentModel.getIncidentOfReporter(user.id, id);
  if (!incident) return refuse(404, INCIDENT_NOT_FOUND);
  return refuse(409, `Solo se pueden ${verb} incidencias abiertas`);
}

/** Changes the fields given (the page's form sends them all; the API only those to change). */
export async function editResidentIncident(
  user: Pick<User, "id">,
  id: string,
  input: ResidentIncidentUpdate,
): Promise<Result<{ incident: ResidentIncidentJson }>> {
  const fields = {
    title: input.title,
    category: input.category,
    location: input.location,
    description: input.description,
    urgency: input.priority,
  };
  const updated = await audited(async (audit) => {
    const before = await incidentModel.getIncidentOfReporter(user.id, id);
    if (!before || before.status !== "open") return null;
    const diff = changedFields(before, { ...before, ...definedOnly(fields) }, ["title", "category", "location", "description", "urgency"] as const);
    if (diff.changed.length === 0) return before;
    const changed = await incidentModel.updateOpenIncidentOfReporter(user.id, id, fields);
    if (!changed) return null;
    audit({
      action: "incident.update",
      entityType: "incident",
      entityId: id,
      summary: `editó su incidencia «${changed.title}»`,
      before: diff.before,
      after: diff.after,
    });
    return changed;
  });
  if (!updated) return notChangeable(user, id, "editar");
  return { ok: true, incident: toResidentIncidentJson(updated) };
}

export async function cancelResidentIncident(user: Pick<User, "id">, id: string): Promise<Result<{ incident: ResidentIncidentJson }>> {
  const cancelled = await audited(async (audit) => {
    const changed = await incidentModel.cancelOpenIncidentOfReporter(user.id, id);
    if (!changed) return null;
    audit({
      action: "incident.cancel",
      entityType: "incident",
      entityId: id,
      summary: `canceló su incidencia «${changed.title}»`,
      before: { status: "open" },
      after: { status: changed.status },
    });
    return changed;
  });
  if (!cancelled) return notChangeable(user, id, "cancelar");
  return { ok: true, incident: toResidentIncidentJson(cancelled) };
}

/** A photo of an incident, for its reporter or an admin; 404 for anyone else. */
export async function getIncidentPhoto(
  viewer: Pick<User, "id" | "role">,
  incidentId: string,
  name: string,
): Promise<Result<{ bytes: Buffer; contentType: string }>> {
  const visible = await incidentModel.incidentHasPhoto(incidentId, name, viewer.role === "admin" ? null : viewer.id);
  const file = visible ? await readPhotoFile(name) : null;
  if (!file) return refuse(404, PHOTO_NOT_FOUND);
  return { ok: true, ...file };
}

/** A photo file this old that no incident refers to was left by a report that never committed. */
export const ORPHAN_PHOTO_MIN_AGE_MS = 3600_000;

/**
 * Deletes the photo files no incident refers to: a report's files are written
 * before its row, so a crash in between (or a failed cleanup after one) leaves
 * them behind. Only files older than an hour go, so a report being saved in
 * another process right now keeps its files. Runs at start and then daily.
 */
export async function sweepOrphanPhotos(now = new Date()) {
  const old = (await listPhotoFiles()).filter((file) => now.getTime() - file.modifiedAt.getTime() >= ORPHAN_PHOTO_MIN_AGE_MS);
  if (old.length === 0) return 0;
  // Read after the files, so a report committed in between counts as referring to its files.
  const referenced = await incidentModel.listReferencedPhotoNames();
  const orphans = old.map((file) => file.name).filter((name) => !referenced.has(name));
  await deletePhotoFiles(orphans);
  return orphans.length;
}
