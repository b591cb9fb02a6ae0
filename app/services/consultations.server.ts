// Enquiries and visit requests as the admin handles them, shared by
// /admin/consultations and /api/consultations: the list with its search and
// stats, the status, the notes, reading one (a pending one becomes read) and
// deleting. How visitors send them is in visitor.server.ts.
import * as consultationModel from "~/models/consultation.server";
import type { Consultation } from "~/models/consultation.server";
import type { ConsultationFilters, ConsultationUpdate } from "~/schemas/consultation";
import { plainIpAddress } from "~/utils/client-ip.server";
import { pageWindow } from "~/utils/paging";
import { refuse, type Result } from "~/utils/refusal.server";

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

/** The details of one consultation; opening a pending one marks it read. */
export async function openConsultation(id: string): Promise<Result<{ consultation: ConsultationJson }>> {
  const consultation = await consultationModel.markConsultationRead(id);
  return consultation ? { ok: true, consultation: toConsultationJson(consultation) } : refuse(404, CONSULTATION_NOT_FOUND);
}

export async function getConsultation(id: string): Promise<Result<{ consultation: ConsultationJson }>> {
  const consultation = await consultationModel.getConsultationById(id);
  return consultation ? { ok: true, consultation: toConsultationJson(consultation) } : refuse(404, CONSULTATION_NOT_FOUND);
}

/** SPEC §4: any status, freely; notes (empty or null clears them). */
export async function updateConsultation(id: string, update: ConsultationUpdate): Promise<Result<{ consultation: ConsultationJson }>> {
  const fields: { status?: Consultation["status"]; adminNotes?: string | null } = {};
  if (update.status !== undefined) fields.status = update.status;
  if (update.adminNotes !== undefined) fields.adminNotes = update.adminNotes || null;
  const updated = await consultationModel.updateConsultation(id, fields);
  return updated ? { ok: true, consultation: toConsultationJson(updated) } : refuse(404, CONSULTATION_NOT_FOUND);
}

export async function deleteConsultation(id: string): Promise<Result<{ consultation: { id: string; nombre: string } }>> {
  const deleted = await consultationModel.deleteConsultation(id);
  return deleted ? { ok: true, consultation: deleted } : refuse(404, CONSULTATION_NOT_FOUND);
}
