import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { AvailabilityDetailSchema, createAvailabilitySchema } from "~/schemas/availability";
import { checkAvailability } from "~/services/availability.server";
import { apiSuccess, methodNotAllowed, parseQuery, refuseApi } from "~/utils/api.server";
import { getClientIp } from "~/utils/client-ip.server";
import { todayInMadrid } from "~/utils/dates";

// GET /api/availability?reservationType&roomType&startDate&endDate (public):
// {available, total} of that room type for every night, or of the salas
// (with the free ones) for every day; the booking's date rules; with
// holds=1 also `unconfirmed` (issue 40).
export async function loader({ request }: LoaderFunctionArgs) {
  const query = parseQuery(request, createAvailabilitySchema({ today: todayInMadrid() }));
  const checked = await checkAvailability(query, { ip: getClientIp(request) });
  if (!checked.ok) refuseApi(checked);
  const { available, total, salas, unconfirmed } = checked.availability;
  // ?holds=1 (the /reservar page): also how many of the places not free only unconfirmed pending stays hold.
  const holds = parseQuery(request, AvailabilityDetailSchema).holds === "1" ? { unconfirmed: unconfirmed ?? 0 } : {};
  return apiSuccess(salas ? { available, total, salas, ...holds } : { available, total, ...holds }, 200, { "Cache-Control": "no-store" });
}

export async function action(_: ActionFunctionArgs) {
  methodNotAllowed();
}
