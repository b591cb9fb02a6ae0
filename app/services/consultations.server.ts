// Enquiries and visit requests as the admin handles them, shared by
// /admin/consultations and /api/consultations: the list with its search and
// stats, the status, the notes, reading one (a pending one becomes read) and
// deleting. How visitors send them is in visitor.server.ts.
import * as consultationModel from "~/models/consultation.server";
import type { Consultation } from "~/models/consultation.server";
import { CONSULTATION_STATUS_LABELS, type ConsultationFilters, type ConsultationUpdate } from "~/schemas/consultation";
import { plainIpAddress } from "~/utils/client-ip.server";
import { pageWindow } from "~/utils/paging";
import { refuse, type Result } from "~/utils/refusal.server";
import { formatDate } from "~/utils/dates";
import { audited, changedFields, SYSTEM_ACTOR, type Audit } from "./audit.server";

export const CONSULTATION_NOT_FOUND = "Consulta no encontrada";

/** SPEC §3 stored consultation; a visit request (`kind: visita`) also has the day and hour asked for. */
export function toConsultationJson(consultation: Consultation) {
  return {
    _id: consultation.id,
    kind: consultation.kind,
    nombre: consultation.nombre,
    email: consultation.email,
    telefono: consultation.telefono,
    mensaje: consultation.mensaje,
    visitDate: consultation.visitDate,
    visitTime: consultation.visitTime,
    status: consultation.status,
    adminNotes: consultation.adminNotes,
    // Rows stored before addresses were kept in one form may hold "::ffff:…".
    ipAddress: plainIpAddress(consultation.ipAddress),
    createdAt: consultation.createdAt.toISOString(),
    updatedAt: consultation.updatedAt.toISOString(),
  };
}
export type ConsultationJson = ReturnType<typeof toConsultationJson>;

/** One page (newest first); the stats count every status among the rows the search matches. */
export async function listConsultationsPage(filters: ConsultationFilters, paging: { page: number; limit: number; clamp?: boolean }) {
  const counts = await consultationModel.countConsultationsByStatus(filters);
  const total = filters.status ? counts[filters.status] : counts.total;
  const window = pageWindow(total, paging);
  const rows = total > 0 ? await consultationModel.listConsultations(filters, window) : [];
  return {
    consultations: rows.map(toConsultationJson),
    stats: counts,
    total,
    page: window.page,
    pages: window.pages,
    limit: window.limit,
  };
}

function auditStatus(audit: Audit, before: Consultation, status: Consultation["status"]) {
  audit({
    action: "consultation.status",
    entityType: "consultation",
    entityId: before.id,
    summary: `cambió el estado de la consulta de ${before.nombre} a ${CONSULTATION_STATUS_LABELS[status].toLowerCase()}`,
    before: { status: before.status },
    after: { status },
  });
}

/** The details of one consultation; opening a pending one marks it read. */
export async function openConsultation(id: string): Promise<Result<{ consultation: ConsultationJson }>> {
  const consultation = await audited(async (audit) => {
    const before = await consultationModel.getConsultationById(id);
    if (!before || before.status !== "pending") return before ?? null;
    const opened = await consultationModel.markConsultationRead(id);
    if (opened) auditStatus(audit, before, opened.status);
    return opened;
  });
  return consultation ? { ok: true, consultation: toConsultationJson(consultation) } : refuse(404, CONSULTATION_NOT_FOUND);
}

export async function getConsultation(id: string): Promise<Result<{ consultation: ConsultationJson }>> {
  const consultation = await consultationModel.getConsultationById(id);
  return consultation ? { ok: true, consultation: toConsultationJson(consultation) } : refuse(404, CONSULTATION_NOT_FOUND);
}

/** SPEC §4: any status, freely; notes (empty or null clears them). Values equal to the stored ones change nothing. */
export async function updateConsultation(id: string, update: ConsultationUpdate): Promise<Result<{ consultation: ConsultationJson }>> {
  const fields: { status?: Consultation["status"]; adminNotes?: string | null } = {};
  if (update.status !== undefined) fields.status = update.status;
  if (update.adminNotes !== undefined) fields.adminNotes = update.adminNotes || null;
  const updated = await audited(async (audit) => {
    const before = await consultationModel.getConsultationById(id);
    if (!before) return null;
    const diff = changedFields(before, { ...before, ...fields }, ["status", "adminNotes"] as const);
    if (diff.changed.length === 0) return before;
    const after = await consultationModel.updateConsultation(id, fields);
    if (!after) return null;
    if (diff.changed.length === 1 && diff.changed[0] === "status") auditStatus(audit, before, after.status);
    else {
      audit({
        action: diff.changed.length === 1 ? "consultation.notes" : "consultation.status",
        entityType: "consultation",
        entityId: id,
        summary:
          diff.changed.length === 1
            ? `cambió las notas de la consulta de ${before.nombre}`
            : `cambió el estado de la consulta de ${before.nombre} a ${CONSULTATION_STATUS_LABELS[after.status].toLowerCase()} y sus notas`,
        before: diff.before,
        after: diff.after,
      });
    }
    return after;
  });
  return updated ? { ok: true, consultation: toConsultationJson(updated) } : refuse(404, CONSULTATION_NOT_FOUND);
}

export async function deleteConsultation(id: string): Promise<Result<{ consultation: { id: string; nombre: string } }>> {
  const deleted = await audited(async (audit) => {
    const before = await consultationModel.getConsultationById(id);
    const gone = before ? await consultationModel.deleteConsultation(id) : null;
    if (!before || !gone) return null;
    audit({
      action: "consultation.delete",
      entityType: "consultation",
      entityId: id,
      summary: `eliminó la consulta de ${before.nombre}`,
      before: { kind: before.kind, nombre: before.nombre, status: before.status, createdAt: before.createdAt },
    });
    return gone;
  });
  return deleted ? { ok: true, consultation: deleted } : refuse(404, CONSULTATION_NOT_FOUND);
}

/** Privacy retention (RETENTION_MONTHS): the consultations received before `before`, with one event (`sistema`). */
export async function purgeOldConsultations(before: Date) {
  return audited(
    async (audit) => {
      const deleted = await consultationModel.purgeConsultationsBefore(before);
      if (deleted > 0) {
        audit({
          action: "consultation.purge",
          entityType: "consultation",
          entityId: null,
          summary: `eliminó ${deleted === 1 ? "1 consulta anterior" : `${deleted} consultas anteriores`} al ${formatDate(before)} (retención)`,
          before: { deleted, before },
        });
      }
      return deleted;
    },
    { actor: SYSTEM_ACTOR, ip: null },
  );
}
