// /admin/incidents: the filtered list with its stats, the open modal's
// incident, and the forms' intents, through app/services/incidents.server.ts.
// Every answer keeps the page's query (filters, page).
import { parseWithZod } from "@conform-to/zod/v4";
import {
  INCIDENT_PAGE_SIZE,
  INCIDENT_STATUS_LABELS,
  IncidentCreateSchema,
  IncidentEditSchema,
  IncidentFiltersSchema,
  IncidentStatusSchema,
  type IncidentFilters,
} from "~/schemas/incident";
import { listDoorOptions } from "~/services/doors.server";
import * as incidents from "~/services/incidents.server";
import type { User } from "~/services/users.server";
import { filtersFromQuery } from "~/utils/api.server";
import { readForm, refusedForm } from "~/utils/form-reply.server";
import { modalOf, pageUrl } from "~/utils/page-url";
import { requestedPage } from "~/utils/paging";
import { refuse, throwRefusal, type Refusal } from "~/utils/refusal.server";
import { successToast } from "~/utils/toast";
import { redirectWithToast } from "~/utils/toast.server";

export const INCIDENT_MODALS = ["new", "edit", "delete"] as const;

export async function loadIncidentsPage(request: Request) {
  const url = new URL(request.url);
  const filters: IncidentFilters = filtersFromQuery(IncidentFiltersSchema, url.searchParams);
  const [list, doors] = await Promise.all([
    incidents.listIncidentsPage(filters, { page: requestedPage(url.searchParams), limit: INCIDENT_PAGE_SIZE, clamp: true }),
    listDoorOptions(),
  ]);
  const modalName = modalOf(url.searchParams, INCIDENT_MODALS);
  const incidentId = url.searchParams.get("incident");
  const selected = modalName && modalName !== "new" && incidentId ? await incidents.getIncident(incidentId) : null;
  return {
    filters,
    doors,
    ...list,
    modal: { name: modalName, incident: selected?.ok ? incidents.toIncidentJson(selected.incident) : null },
  };
}

/** SPEC §8: the error toast is 'Error' with what failed, and why. */
function failure(refusal: Refusal, what: string): Refusal {
  return { ...refusal, message: `${what}: ${refusal.message}`, field: undefined };
}

export async function incidentsAction(request: Request, admin: User) {
  const formData = await readForm(request);
  const intent = String(formData.get("intent") ?? "");
  const id = String(formData.get("id") ?? "");
  const listUrl = pageUrl(request, { modal: null, incident: null });

  switch (intent) {
    case "create-incident": {
      const submission = parseWithZod(formData, { schema: IncidentCreateSchema });
      if (submission.status !== "success") return refusedForm(submission, { intent });
      const created = await incidents.createIncident(submission.value, admin);
      if (!created.ok) return refusedForm(failure(created, "No se pudo crear la incidencia"), { intent, submission });
      return redirectWithToast(listUrl, successToast("Incidencia Creada", created.incident.title));
    }
    case "update-incident": {
      const submission = parseWithZod(formData, { schema: IncidentEditSchema });
      if (submission.status !== "success") return refusedForm(submission, { intent });
      const updated = await incidents.updateIncident(id, submission.value);
      if (!updated.ok) return refusedForm(failure(updated, "No se pudo actualizar la incidencia"), { intent, submission });
      return redirectWithToast(listUrl, successToast("Incidencia Actualizada", updated.incident.title));
    }
    case "advance-status": {
      const submission = parseWithZod(formData, { schema: IncidentStatusSchema });
      if (submission.status !== "success") return refusedForm(refuse(400, "No se pudo actualizar el estado: el estado no es válido"), { intent });
      const changed = await incidents.changeIncidentStatus(id, submission.value.status, admin);
      if (!changed.ok) return refusedForm(failure(changed, "No se pudo actualizar el estado"), { intent });
      return redirectWithToast(
        pageUrl(request),
        successToast("Estado Actualizado", `Incidencia marcada como ${INCIDENT_STATUS_LABELS[changed.incident.status]}`),
      );
    }
    case "delete-incident": {
      const deleted = await incidents.deleteIncident(id);
      if (!deleted.ok) return refusedForm(failure(deleted, "No se pudo eliminar la incidencia"), { intent });
      return redirectWithToast(listUrl, successToast("Incidencia Eliminada", deleted.incident.title));
    }
    default:
      throwRefusal({ status: 400, message: "Acción no válida" });
  }
}
