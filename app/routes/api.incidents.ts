import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { IncidentApiCreateSchema, IncidentListQuerySchema } from "~/schemas/incident";
import { createIncident, listIncidentsPage, toIncidentJson } from "~/services/incidents.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, parseQuery, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/incidents?page&limit&status&type&urgency&doorId: every source of the store, newest first.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const { page, limit, ...filters } = parseQuery(request, IncidentListQuerySchema);
  const result = await listIncidentsPage(filters, { page, limit });
  return apiSuccess({ incidents: result.incidents, stats: result.stats, total: result.total, page, limit, pages: result.pages });
}

// POST /api/incidents: the create form's fields or a door-level report's.
export async function action({ request }: ActionFunctionArgs) {
  const admin = await requireApiAdmin(request);
  if (request.method !== "POST") methodNotAllowed();
  const created = await createIncident(await parseJsonBody(request, IncidentApiCreateSchema), admin);
  if (!created.ok) refuseApi(created);
  return apiSuccess(toIncidentJson(created.incident), 201);
}
