import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { markAllRead } from "~/services/notifications.server";
import { apiSuccess, methodNotAllowed } from "~/utils/api.server";
import { requireApiUser } from "~/utils/auth.server";

// PUT /api/user-portal/notifications/read: every unread notification of the caller becomes read.
export async function action({ request }: ActionFunctionArgs) {
  const user = await requireApiUser(request);
  if (request.method !== "PUT") methodNotAllowed();
  return apiSuccess({ marked: await markAllRead(user.id) });
}

export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiUser(request);
  methodNotAllowed();
}
