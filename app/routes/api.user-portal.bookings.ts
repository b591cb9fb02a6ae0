import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { BookingSchema } from "~/schemas/facility-booking";
import { createResidentBooking, listResidentBookings } from "~/services/facility-bookings.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiUser } from "~/utils/auth.server";

// GET /api/user-portal/bookings: the caller's bookings, those not over first.
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireApiUser(request);
  return apiSuccess(await listResidentBookings(user));
}

// POST /api/user-portal/bookings {facilityType, facilityId, date, startTime, duration, notes?}
export async function action({ request }: ActionFunctionArgs) {
  const user = await requireApiUser(request);
  if (request.method !== "POST") methodNotAllowed();
  const created = await createResidentBooking(user, await parseJsonBody(request, BookingSchema));
  if (!created.ok) refuseApi(created);
  return apiSuccess(created.booking, 201);
}
