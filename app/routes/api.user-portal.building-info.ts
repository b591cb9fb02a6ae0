import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { getBuildingInfo } from "~/services/building.server";
import { apiSuccess, methodNotAllowed } from "~/utils/api.server";
import { requireApiUser } from "~/utils/auth.server";

// GET /api/user-portal/building-info: the sensor's latest reading (at most an hour old) or the defaults.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiUser(request);
  return apiSuccess(await getBuildingInfo());
}

export async function action({ request }: ActionFunctionArgs) {
  await requireApiUser(request);
  methodNotAllowed();
}
