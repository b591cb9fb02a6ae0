import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { ReservationRoomSchema } from "~/schemas/reservation";
import { moveReservationRoom } from "~/services/reservations.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}

// PUT /api/anonymous-reservations/{id}/room {roomId} (admin): a confirmed
// stay moves to another free room of its type (or another free sala).
export async function action({ request, params }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "PUT") methodNotAllowed();
  const { roomId } = await parseJsonBody(request, ReservationRoomSchema);
  const moved = await moveReservationRoom(params.id ?? "", roomId);
  if (!moved.ok) refuseApi(moved);
  return apiSuccess(moved.reservation);
}
