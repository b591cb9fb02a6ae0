import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { HolidaySchema } from "~/schemas/holiday";
import { createHoliday, listHolidays } from "~/services/holidays.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/holidays: the building's holidays, by day.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  return apiSuccess(await listHolidays());
}

// POST /api/holidays {day: "YYYY-MM-DD", name}
export async function action({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "POST") methodNotAllowed();
  const created = await createHoliday(await parseJsonBody(request, HolidaySchema));
  if (!created.ok) refuseApi(created);
  return apiSuccess(created.holiday, 201);
}
