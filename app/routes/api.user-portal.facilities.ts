import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { listFacilityCatalogue } from "~/services/facility-bookings.server";
import { apiSuccess, methodNotAllowed } from "~/utils/api.server";
import { requireApiUser } from "~/utils/auth.server";

// GET /api/user-portal/facilities: the facility catalogue (ids for a booking).
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiUser(request);
  return apiSuccess(await listFacilityCatalogue());
}

export async function action({ request }: ActionFunctionArgs) {
  await requireApiUser(request);
  methodNotAllowed();
}
