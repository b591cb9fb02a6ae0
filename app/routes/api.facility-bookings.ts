import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { FacilityBookingListQuerySchema } from "~/schemas/calendar";
import { listBookingsPage } from "~/services/facility-bookings.server";
import { methodNotAllowed, parseQuery } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/facility-bookings?facilityId&resident&date&page&limit (admin):
// residents' bookings, latest start first, with `pagination` beside `data`.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const { page, limit, ...filters } = parseQuery(request, FacilityBookingListQuerySchema);
  const result = await listBookingsPage(filters, { page, limit });
  return Response.json({ success: true, data: result.bookings, pagination: { page, limit, total: result.total, pages: result.pages } });
}

export async function action({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}
