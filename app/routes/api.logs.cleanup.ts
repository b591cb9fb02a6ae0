import type { ActionFunctionArgs } from "@remix-run/node";
import { LogCleanupSchema } from "~/schemas/access-log";
import { cleanupDeniedLogs } from "~/services/access-log-admin.server";
import { queryObject } from "~/services/card-admin.server";
import { apiSuccess, methodNotAllowed, parseOrFail, readJsonBody } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

export async function loader() {
  methodNotAllowed();
}

// DELETE /api/logs/cleanup {cardId, accessGranted: false} (or the same as query parameters)
export async function action({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "DELETE") methodNotAllowed();
  const hasBody = (await request.clone().text()).trim() !== "";
  const input = { ...queryObject(new URL(request.url).searchParams), ...((hasBody ? await readJsonBody(request) : {}) as object) };
  const { cardId } = parseOrFail(LogCleanupSchema, input);
  return apiSuccess(await cleanupDeniedLogs(cardId));
}
