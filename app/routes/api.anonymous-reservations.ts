import type { ActionFunctionArgs } from "@remix-run/node";
import { toGuestView } from "~/models/reservation.server";
import { createReservationSchema } from "~/schemas/reservation";
import { placeReservation } from "~/services/visitor.server";
import { apiSuccess, methodNotAllowed, parseJsonBody } from "~/utils/api.server";
import { apiError } from "~/utils/auth.server";
import { todayInMadrid } from "~/utils/dates";
import { getClientIp } from "~/utils/request.server";

export async function loader() {
  methodNotAllowed();
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") methodNotAllowed();
  const input = await parseJsonBody(request, createReservationSchema({ today: todayInMadrid() }));
  const result = await placeReservation(input, { ip: getClientIp(request) });
  if (!result.ok) apiError(result.status, result.message);
  return apiSuccess({ ...toGuestView(result.reservation), emailSent: result.emailSent }, 201);
}
