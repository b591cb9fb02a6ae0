import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { getDoorsOverview } from "~/services/doors.server";
import { apiSuccess, methodNotAllowed } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/doors/stats (SPEC "Door stats").
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  return apiSuccess((await getDoorsOverview()).stats);
}

export async function action({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}
