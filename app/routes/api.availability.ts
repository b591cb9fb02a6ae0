import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { createAvailabilitySchema } from "~/schemas/availability";
import { checkAvailability } from "~/services/availability.server";
import { apiSuccess, methodNotAllowed, parseQuery, refuseApi } from "~/utils/api.server";
import { getClientIp } from "~/utils/client-ip.server";
import { todayInMadrid } from "~/utils/dates";

// GET /api/availability?reservationType&roomType&startDate&endDate (public):
// {available, total} of that room type for every night, or of the salas
// (with the free ones) for every day; the booking's date rules.
export async function loader({ request }: LoaderFunctionArgs) {
  const query = parseQuery(request, createAvailabilitySchema({ today: todayInMadrid() }));
  const checked = await checkAvailability(query, { ip: getClientIp(request) });
  if (!checked.ok) refuseApi(checked);
  const { available, total, salas } = checked.availability;
  return apiSuccess(salas ? { available, total, salas } : { available, total }, 200, { "Cache-Control": "no-store" });
}

export async function action(_: ActionFunctionArgs) {
  methodNotAllowed();
}
