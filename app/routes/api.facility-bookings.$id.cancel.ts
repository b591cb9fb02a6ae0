import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { cancelBookingByAdmin } from "~/services/facility-bookings.server";
import { apiSuccess, methodNotAllowed, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// PUT /api/facility-bookings/{id}/cancel (admin): cancels a resident's booking and notifies them.
export async function action({ request, params }: ActionFunctionArgs) {
  const admin = await requireApiAdmin(request);
  if (request.method !== "PUT") methodNotAllowed();
  const cancelled = await cancelBookingByAdmin(params.id ?? "", admin);
  if (!cancelled.ok) refuseApi(cancelled);
  return apiSuccess(cancelled.booking);
}

export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}
