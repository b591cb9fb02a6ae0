import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { DaySlotsQuerySchema } from "~/schemas/calendar";
import { listDaySlots } from "~/services/facility-bookings.server";
import { apiSuccess, methodNotAllowed, parseQuery, refuseApi } from "~/utils/api.server";
import { requireApiUser } from "~/utils/auth.server";

// GET /api/user-portal/facilities/{id}/slots?date=YYYY-MM-DD: what is free
// and taken of the facility that day (the booking form shows it before booking).
export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireApiUser(request);
  const { date } = parseQuery(request, DaySlotsQuerySchema);
  const found = await listDaySlots(params.id ?? "", date);
  if (!found.ok) refuseApi(found);
  return apiSuccess(found.slots);
}

export async function action({ request }: ActionFunctionArgs) {
  await requireApiUser(request);
  methodNotAllowed();
}
