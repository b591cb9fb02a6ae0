import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { DoorSchema } from "~/schemas/door";
import { createDoor, getDoorsOverview, toDoorJson } from "~/services/doors.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/doors: every door with its last 24 hours' activity.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  return apiSuccess((await getDoorsOverview()).doors);
}

// POST /api/doors {name, location, doorId, description?, status?}
export async function action({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "POST") methodNotAllowed();
  const created = await createDoor(await parseJsonBody(request, DoorSchema));
  if (!created.ok) refuseApi(created);
  return apiSuccess(toDoorJson(created.door), 201);
}
