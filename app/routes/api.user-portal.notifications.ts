import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { getNotifications } from "~/services/notifications.server";
import { apiSuccess, methodNotAllowed } from "~/utils/api.server";
import { requireApiUser } from "~/utils/auth.server";

// GET /api/user-portal/notifications: the caller's notifications, newest first, and the unread count.
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireApiUser(request);
  return apiSuccess(await getNotifications(user.id));
}

export async function action({ request }: ActionFunctionArgs) {
  await requireApiUser(request);
  methodNotAllowed();
}
