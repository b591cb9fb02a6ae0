import type { ActionFunctionArgs } from "@remix-run/node";
import { createReservationSchema } from "~/schemas/reservation";
import { placeReservation, toGuestView } from "~/services/visitor.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireSameOrigin } from "~/utils/auth.server";
import { getClientIp } from "~/utils/client-ip.server";
import { todayInMadrid } from "~/utils/dates";

export async function loader() {
  methodNotAllowed();
}

// POST /api/anonymous-reservations: a guest's booking (SPEC §3 payload).
export async function action({ request }: ActionFunctionArgs) {
  requireSameOrigin(request);
  if (request.method !== "POST") methodNotAllowed();
  const input = await parseJsonBody(request, createReservationSchema({ today: todayInMadrid() }));
  const placed = await placeReservation(input, { ip: getClientIp(request) });
  if (!placed.ok) refuseApi(placed);
  return apiSuccess({ ...toGuestView(placed.reservation), emailSent: placed.emailSent }, 201);
}
