import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { RoomSchema } from "~/schemas/room";
import { createRoom, listRooms } from "~/services/rooms.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/rooms (admin): every room, by floor and name.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  return apiSuccess(await listRooms());
}

// POST /api/rooms (admin): {name, floor, roomType, doorId?, status?, notes?}.
export async function action({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "POST") methodNotAllowed();
  const created = await createRoom(await parseJsonBody(request, RoomSchema));
  if (!created.ok) refuseApi(created);
  return apiSuccess(created.room, 201);
}
