import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { createReservationSchema, ReservationListQuerySchema } from "~/schemas/reservation";
import { listReservationsPage } from "~/services/reservations.server";
import { placeReservation, toGuestView } from "~/services/visitor.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, parseQuery, refuseApi } from "~/utils/api.server";
import { requireApiAdmin, requireSameOrigin } from "~/utils/auth.server";
import { getClientIp } from "~/utils/client-ip.server";
import { todayInMadrid } from "~/utils/dates";

// GET /api/anonymous-reservations?page&limit&status (admin): newest first,
// `data` the page, `pagination` and `stats` beside it (SPEC §7).
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const { page, limit, ...filters } = parseQuery(request, ReservationListQuerySchema);
  const result = await listReservationsPage(filters, { page, limit });
  return Response.json({
    success: true,
    data: result.reservations,
    pagination: { page, limit, total: result.total, pages: result.pages },
    stats: result.stats,
  });
}

// POST /api/anonymous-reservations: a guest's booking (SPEC §3 payload).
export async function action({ request }: ActionFunctionArgs) {
  requireSameOrigin(request);
  if (request.method !== "POST") methodNotAllowed();
  const input = await parseJsonBody(request, createReservationSchema({ today: todayInMadrid() }));
  const placed = await placeReservation(input, { ip: getClientIp(request) });
  if (!placed.ok) refuseApi(placed);
  // A stay longer than MAX_ONLINE_NIGHTS is an enquiry for the house, not a hold (issue 40).
  if (placed.kind === "enquiry") return apiSuccess({ enquiry: true, nights: placed.nights, emailSent: placed.emailSent }, 202);
  return apiSuccess({ ...toGuestView(placed.reservation), emailSent: placed.emailSent }, 201);
}
