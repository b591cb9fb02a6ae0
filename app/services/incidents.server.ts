// Incidents as the admins change them. A status change of a resident's
// incident tells its reporter in their portal (SPEC §3 Notification).
import { getIncidentById, setIncidentStatus, type Incident } from "~/models/incident.server";
import type { User } from "~/models/user.server";
import { INCIDENT_STATUS_LABELS, type IncidentStatus } from "~/schemas/resident-incident";
import { refuse, type Result } from "~/utils/refusal.server";
import { notifyUser } from "./notifications.server";

/**
 * Sets the incident's status (any of SPEC §4's, freely). When it changes and
 * the incident was reported by a resident from the portal, the resident is
 * notified. `changed: false` when the status was that already (nothing sent).
 */
export async function changeIncidentStatus(
  incidentId: string,
  status: IncidentStatus,
  _admin: Pick<User, "id" | "username">,
): Promise<Result<{ incident: Incident; changed: boolean }>> {
  const existing = await getIncidentById(incidentId);
  if (!existing) return refuse(404, "Incidencia no encontrada");
  if (existing.status === status) return { ok: true, incident: existing, changed: false };
  const incident = await setIncidentStatus(incidentId, status);
  if (!incident) return refuse(404, "Incidencia no encontrada");
  if (incident.source === "resident" && incident.reportedById) {
    await notifyUser(incident.reportedById, {
      type: "incident",
      title: "Incidencia actualizada",
      message: `Tu incidencia «${incident.title}» está ahora ${INCIDENT_STATUS_LABELS[status].toLowerCase()}.`,
    });
  }
  return { ok: true, incident, changed: true };
}
