// Incidents as the admin manages them, shared by /admin/incidents and
// /api/incidents: one list over every source of the store (door incidents,
// residents' reports, public fault reports) with its filters and stats,
// creating, editing, the status change and deleting. A status change of a
// resident's incident tells that resident in the portal (notifyUser).
import * as doorModel from "~/models/door.server";
import * as incidentModel from "~/models/incident.server";
import { deletePhotoFiles } from "~/models/incident-photo.server";
import type { IncidentWithReporter } from "~/models/incident.server";
import type { User } from "~/models/user.server";
import {
  INCIDENT_STATUS_LABELS,
  type AdminIncidentStatus,
  type IncidentApiCreateInput,
  type IncidentEditInput,
  type IncidentFilters,
} from "~/schemas/incident";
import { pageWindow } from "~/utils/paging";
import { refuse, type Result } from "~/utils/refusal.server";
import { formatDate } from "~/utils/dates";
import { audited, changedFields, SYSTEM_ACTOR } from "./audit.server";
import { notifyUser } from "./notifications.server";

export type { IncidentWithReporter };

export const INCIDENT_NOT_FOUND = "Incidencia no encontrada";
export const INCIDENT_DOOR_NOT_FOUND = "La puerta no existe";

/**
 * Where a resident's photo is served (to its reporter and to admins only:
 * app/routes/api.user-portal.incidents.$id.photos.$name.ts). The one place
 * that knows the URL.
 */
export function incidentPhotoUrl(incidentId: string, photoName: string) {
  return `/api/user-portal/incidents/${encodeURIComponent(incidentId)}/photos/${encodeURIComponent(photoName)}`;
}

function fullName(reporter: NonNullable<IncidentWithReporter["reporter"]>) {
  return [reporter.firstName, reporter.lastName].filter(Boolean).join(" ") || reporter.username;
}

/** Who reported it, as the list shows it: public (name, floor), resident (name, unit), door (the door). */
function reporterOf(incident: IncidentWithReporter) {
  switch (incident.source) {
    case "public":
      return { name: incident.reporterName ?? incident.reportedBy, floor: incident.floor, unit: null };
    case "resident":
      return {
        name: incident.reporter ? fullName(incident.reporter) : incident.reportedBy,
        floor: null,
        unit: incident.reporter?.unitNumber ?? null,
      };
    case "door":
      return { name: incident.reportedBy, floor: null, unit: null };
  }
}

/** SPEC §3 admin incident, with where it came from and who reported it. */
export function toIncidentJson(incident: IncidentWithReporter) {
  return {
    _id: incident.id,
    title: incident.title,
    type: incident.type,
    status: incident.status,
    urgency: incident.urgency,
    description: incident.description,
    /** The door's hardware code (`doorId` of /api/doors), or null (no door, or a deleted one). */
    doorId: incident.doorCode,
    doorName: incident.doorName,
    reportedBy: incident.reportedBy,
    reportedAt: incident.reportedAt.toISOString(),
    source: incident.source,
    /** Residents' and public reports: plumbing, electrical… */
    category: incident.category,
    location: incident.location,
    reporter: reporterOf(incident),
    photos: (incident.photos ?? []).map((photoId) => ({ id: photoId, url: incidentPhotoUrl(incident.id, photoId) })),
    createdAt: incident.createdAt.toISOString(),
    updatedAt: incident.updatedAt.toISOString(),
  };
}
export type IncidentJson = ReturnType<typeof toIncidentJson>;

/**
 * One page of the filtered list with its stats. The stats count every
 * status among the incidents the other filters (type, urgency, door) match,
 * so the status tiles stay meaningful while a status is filtered.
 */
export async function listIncidentsPage(filters: IncidentFilters, paging: { page: number; limit: number; clamp?: boolean }) {
  const door = filters.doorId ? await doorModel.findDoorByCodeOrId(filters.doorId) : null;
  const criteria: incidentModel.IncidentCriteria = {
    status: filters.status,
    type: filters.type,
    urgency: filters.urgency,
    // An unknown door matches nothing.
    doorId: filters.doorId ? (door?.id ?? filters.doorId) : undefined,
  };
  const counts = await incidentModel.countIncidentsByStatus(criteria);
  const total = filters.status ? counts[filters.status] : counts.total;
  const window = pageWindow(total, paging);
  const rows = total > 0 ? await incidentModel.listIncidents(criteria, window) : [];
  return {
    incidents: rows.map(toIncidentJson),
    stats: {
      total: counts.total,
      open: counts.open,
      inProgress: counts["in-progress"],
      resolved: counts.resolved,
      closed: counts.closed,
      cancelled: counts.cancelled,
    },
    total,
    page: window.page,
    pages: window.pages,
    limit: window.limit,
  };
}
export type IncidentStats = Awaited<ReturnType<typeof listIncidentsPage>>["stats"];

export async function getIncident(id: string): Promise<Result<{ incident: IncidentWithReporter }>> {
  const incident = await incidentModel.getIncidentById(id);
  return incident ? { ok: true, incident } : refuse(404, INCIDENT_NOT_FOUND);
}

/**
 * An incident on a door, reported by an admin (the create form, a door's
 * report, POST /api/incidents). `doorId` is the door's hardware code, or its
 * row id (the dashboard's report; the API's old form, for one release).
 */
export async function createIncident(
  input: Pick<IncidentApiCreateInput, "type" | "doorId" | "urgency"> & Partial<Pick<IncidentApiCreateInput, "title" | "description" | "status">>,
  admin: Pick<User, "id" | "username">,
): Promise<Result<{ incident: IncidentWithReporter }>> {
  const door = await doorModel.findDoorByCodeOrId(input.doorId);
  if (!door) return refuse(404, INCIDENT_DOOR_NOT_FOUND, { field: "doorId" });
  const created = await audited(async (audit) => {
    const incident = await incidentModel.createDoorIncident({ ...input, door, reportedBy: admin });
    audit({
      action: "incident.create",
      entityType: "incident",
      entityId: incident.id,
      summary: `creó la incidencia «${incident.title}» en ${door.name}`,
      after: incidentFieldsOf(incident),
    });
    return incident;
  });
  return { ok: true, incident: { ...created, reporter: null, doorCode: door.code } };
}

/** A resident hears of every status change of their own incident. */
async function tellReporter(before: IncidentWithReporter, status: IncidentWithReporter["status"]) {
  if (before.status === status || before.source !== "resident" || !before.reportedById) return;
  await notifyUser(before.reportedById, {
    type: "incident",
    title: "Incidencia actualizada",
    message: `Tu incidencia «${before.title}» está ahora ${INCIDENT_STATUS_LABELS[status].toLowerCase()}.`,
  });
}

/** The fields of an incident an event keeps. */
const AUDITED_INCIDENT_FIELDS = ["title", "type", "category", "status", "urgency", "description", "location", "doorName"] as const;

export function incidentFieldsOf(incident: incidentModel.Incident) {
  return Object.fromEntries(AUDITED_INCIDENT_FIELDS.map((key) => [key, incident[key]]));
}

/** Changes the given fields; the reporter hears of a new status. Values equal to the stored ones change nothing. */
async function changeIncident(id: string, fields: incidentModel.IncidentFields): Promise<Result<{ incident: IncidentWithReporter }>> {
  return audited(async (audit): Promise<Result<{ incident: IncidentWithReporter }>> => {
    const before = await incidentModel.getIncidentById(id);
    if (!before) return refuse(404, INCIDENT_NOT_FOUND);
    const diff = changedFields(before, { ...before, ...fields }, AUDITED_INCIDENT_FIELDS);
    if (diff.changed.length === 0) return { ok: true, incident: before };
    const updated = await incidentModel.updateIncident(id, fields);
    if (!updated) return refuse(404, INCIDENT_NOT_FOUND);
    await tellReporter(before, updated.status);
    const statusOnly = diff.changed.length === 1 && diff.changed[0] === "status";
    audit({
      action: statusOnly ? "incident.status" : "incident.update",
      entityType: "incident",
      entityId: id,
      summary: statusOnly
        ? `cambió el estado de la incidencia «${updated.title}» a ${INCIDENT_STATUS_LABELS[updated.status].toLowerCase()}`
        : `editó la incidencia «${updated.title}»`,
      before: diff.before,
      after: diff.after,
    });
    return { ok: true, incident: { ...updated, reporter: before.reporter, doorCode: before.doorCode } };
  });
}

/** SPEC §5 edit: title, type, status, urgency and description (empty clears it). */
export async function updateIncident(id: string, input: IncidentEditInput) {
  return changeIncident(id, { ...input, description: input.description || null });
}

/**
 * The advance button and PUT /api/incidents/{id}/status. The residents'
 * portal was built beside this screen and shares this function; `_admin` is
 * who asks (not stored).
 */
export async function changeIncidentStatus(
  incidentId: string,
  status: AdminIncidentStatus,
  _admin: Pick<User, "id" | "username">,
): Promise<Result<{ incident: IncidentWithReporter }>> {
  return changeIncident(incidentId, { status });
}

/** Deletes the incident and its photo files. */
export async function deleteIncident(id: string): Promise<Result<{ incident: { id: string; title: string } }>> {
  const deleted = await audited(async (audit) => {
    const before = await incidentModel.getIncidentById(id);
    const gone = before ? await incidentModel.deleteIncident(id) : null;
    if (!before || !gone) return null;
    audit({
      action: "incident.delete",
      entityType: "incident",
      entityId: id,
      summary: `eliminó la incidencia «${gone.title}»`,
      before: { ...incidentFieldsOf(before), reportedBy: before.reportedBy, photos: (gone.photos ?? []).length },
    });
    return gone;
  });
  if (!deleted) return refuse(404, INCIDENT_NOT_FOUND);
  await deletePhotoFiles(deleted.photos ?? []);
  return { ok: true, incident: { id: deleted.id, title: deleted.title } };
}

/** Privacy retention (RETENTION_MONTHS): closed public fault reports last changed before `before`, with one event (`sistema`). */
export async function purgeOldPublicIncidents(before: Date) {
  return audited(
    async (audit) => {
      const deleted = await incidentModel.purgeClosedPublicIncidents(before);
      if (deleted > 0) {
        audit({
          action: "incident.purge",
          entityType: "incident",
          entityId: null,
          summary: `eliminó ${deleted === 1 ? "1 avería pública cerrada anterior" : `${deleted} averías públicas cerradas anteriores`} al ${formatDate(before)} (retención)`,
          before: { deleted, before },
        });
      }
      return deleted;
    },
    { actor: SYSTEM_ACTOR, ip: null },
  );
}
