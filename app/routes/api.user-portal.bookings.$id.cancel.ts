import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { cancelResidentBooking } from "~/services/facility-bookings.server";
import { apiSuccess, methodNotAllowed, refuseApi } from "~/utils/api.server";
import { requireApiUser } from "~/utils/auth.server";

// PUT /api/user-portal/bookings/{id}/cancel: another resident's booking answers 404.
export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireApiUser(request);
  if (request.method !== "PUT") methodNotAllowed();
  const cancelled = await cancelResidentBooking(user, params.id ?? "");
  if (!cancelled.ok) refuseApi(cancelled);
  return apiSuccess(cancelled.booking);
}

export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiUser(request);
  methodNotAllowed();
}
