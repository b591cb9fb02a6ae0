import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { createReservationDatesSchema } from "~/schemas/reservation";
import { changeReservationDates } from "~/services/reservations.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";
import { todayInMadrid } from "~/utils/dates";

export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}

// PUT /api/anonymous-reservations/{id}/dates {startDate, endDate} (admin): a
// pending or confirmed stay gets new dates if its room (or its type) is free
// on them; its key's windows follow.
export async function action({ request, params }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "PUT") methodNotAllowed();
  const dates = await parseJsonBody(request, createReservationDatesSchema({ today: todayInMadrid() }));
  const changed = await changeReservationDates(params.id ?? "", dates);
  if (!changed.ok) refuseApi(changed);
  return apiSuccess(changed.reservation);
}
