// /admin/consultations: the searched list with its stats, the open modal's
// consultation, and the forms' intents (status, notes, opening the details,
// deleting), through app/services/consultations.server.ts.
import { parseWithZod } from "@conform-to/zod/v4";
import { redirect } from "@remix-run/node";
import {
  CONSULTATION_PAGE_SIZE,
  CONSULTATION_STATUS_LABELS,
  ConsultationFiltersSchema,
  ConsultationNotesSchema,
  ConsultationStatusSchema,
  type ConsultationFilters,
} from "~/schemas/consultation";
import * as consultations from "~/services/consultations.server";
import { filtersFromQuery } from "~/utils/api.server";
import { firstMessage, formDone, readForm, refusedForm } from "~/utils/form-reply.server";
import { modalOf, pageUrl } from "~/utils/page-url";
import { requestedPage } from "~/utils/paging";
import { refuse, throwRefusal } from "~/utils/refusal.server";
import { successToast } from "~/utils/toast";
import { redirectWithToast } from "~/utils/toast.server";

export const CONSULTATION_MODALS = ["detail", "message", "delete"] as const;

export async function loadConsultationsPage(request: Request) {
  const url = new URL(request.url);
  const filters: ConsultationFilters = filtersFromQuery(ConsultationFiltersSchema, url.searchParams);
  const list = await consultations.listConsultationsPage(filters, {
    page: requestedPage(url.searchParams),
    limit: CONSULTATION_PAGE_SIZE,
    clamp: true,
  });
  const modalName = modalOf(url.searchParams, CONSULTATION_MODALS);
  const consultationId = url.searchParams.get("consultation");
  const selected = modalName && consultationId ? await consultations.getConsultation(consultationId) : null;
  return { filters, ...list, modal: { name: modalName, consultation: selected?.ok ? selected.consultation : null } };
}

const STATUS_FAILED = "No se pudo actualizar el estado";
const NOTES_FAILED = "No se pudieron guardar las notas";
const DELETE_FAILED = "No se pudo eliminar la consulta";

export async function consultationsAction(request: Request) {
  const formData = await readForm(request);
  const intent = String(formData.get("intent") ?? "");
  const id = String(formData.get("id") ?? "");

  switch (intent) {
    case "open-details": {
      // SPEC: opening a pending consultation's details marks it read.
      const opened = await consultations.openConsultation(id);
      if (!opened.ok) return refusedForm(opened, { intent, toastTitle: "Error" });
      return redirect(pageUrl(request, { modal: "detail", consultation: id }));
    }
    case "set-status": {
      const submission = parseWithZod(formData, { schema: ConsultationStatusSchema });
      if (submission.status !== "success") {
        return refusedForm(refuse(400, firstMessage(submission) ?? "Datos no válidos"), { intent, toastTitle: STATUS_FAILED });
      }
      const updated = await consultations.updateConsultation(id, { status: submission.value.status });
      if (!updated.ok) return refusedForm(updated, { intent, toastTitle: STATUS_FAILED });
      const { nombre, status } = updated.consultation;
      return formDone(formData, intent, pageUrl(request), successToast("Estado actualizado", `Consulta de ${nombre}: ${CONSULTATION_STATUS_LABELS[status]}`));
    }
    case "save-notes": {
      const submission = parseWithZod(formData, { schema: ConsultationNotesSchema });
      if (submission.status !== "success") {
        return refusedForm(refuse(400, firstMessage(submission) ?? "Datos no válidos"), { intent, toastTitle: NOTES_FAILED });
      }
      const updated = await consultations.updateConsultation(id, { adminNotes: submission.value.adminNotes ?? null });
      if (!updated.ok) return refusedForm(updated, { intent, toastTitle: NOTES_FAILED });
      return formDone(formData, intent, pageUrl(request), successToast("Notas actualizadas", `Consulta de ${updated.consultation.nombre}`));
    }
    case "delete-consultation": {
      const deleted = await consultations.deleteConsultation(id);
      if (!deleted.ok) return refusedForm(deleted, { intent, toastTitle: DELETE_FAILED });
      return redirectWithToast(
        pageUrl(request, { modal: null, consultation: null }),
        successToast("Consulta eliminada", `Consulta de ${deleted.consultation.nombre}`),
      );
    }
    default:
      throwRefusal({ status: 400, message: "Acción no válida" });
  }
}
