// /admin/invitaciones: every resident's visitor passes, filtered and paged,
// and 'Anular invitación', through app/services/visitor-passes.server.ts
// (the same functions as GET and DELETE /api/visitor-passes).
import { VISITOR_PASS_PAGE_SIZE, VisitorPassFiltersSchema, type VisitorPassFilters } from "~/schemas/visitor-pass";
import { cancelVisitorPass, getVisitorPassJson, listVisitorPassesPage } from "~/services/visitor-passes.server";
import { filtersFromQuery } from "~/utils/api.server";
import { readForm, refusedForm } from "~/utils/form-reply.server";
import { modalOf, pageUrl } from "~/utils/page-url";
import { requestedPage } from "~/utils/paging";
import { throwRefusal } from "~/utils/refusal.server";
import { successToast } from "~/utils/toast";
import { redirectWithToast } from "~/utils/toast.server";

export const VISITOR_PASS_MODALS = ["anular"] as const;

export async function loadVisitorPassesPage(request: Request) {
  const url = new URL(request.url);
  const filters: VisitorPassFilters = filtersFromQuery(VisitorPassFiltersSchema, url.searchParams);
  const list = await listVisitorPassesPage(filters, { page: requestedPage(url.searchParams), limit: VISITOR_PASS_PAGE_SIZE, clamp: true });
  const modal = modalOf(url.searchParams, VISITOR_PASS_MODALS);
  const passId = url.searchParams.get("invitacion");
  const pass = modal && passId ? await getVisitorPassJson(passId) : null;
  return { filters, ...list, modal: { name: modal, pass } };
}

export async function visitorPassesAction(request: Request) {
  const formData = await readForm(request);
  const intent = String(formData.get("intent") ?? "");
  switch (intent) {
    case "cancel-visitor-pass": {
      const cancelled = await cancelVisitorPass(String(formData.get("id") ?? ""));
      if (!cancelled.ok) return refusedForm(cancelled, { intent, toastTitle: "No se pudo anular la invitación" });
      return redirectWithToast(pageUrl(request, { modal: null, invitacion: null }), successToast("Invitación anulada", cancelled.pass.visitorName));
    }
    default:
      throwRefusal({ status: 400, message: "Acción no válida" });
  }
}
