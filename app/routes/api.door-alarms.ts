import type { LoaderFunctionArgs } from "@remix-run/node";
import { listDoorAlarms } from "~/services/door-alarms.server";
import { apiSuccess } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/door-alarms: the open door alarms, newest first ({alarms, count}).
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const alarms = await listDoorAlarms();
  return apiSuccess({ alarms, count: alarms.length });
}
