import type { ActionFunctionArgs } from "@remix-run/node";
import { LogCleanupSchema } from "~/schemas/access-log";
import { cleanupDeniedLogs } from "~/services/access-log-review.server";
import { apiSuccess, methodNotAllowed, parseOrFail, queryObject, readOptionalJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

export async function loader({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}

// DELETE /api/logs/cleanup {cardId, accessGranted: false} (or the same as query parameters)
export async function action({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "DELETE") methodNotAllowed();
  const body = (await readOptionalJsonBody(request)) as object;
  const { cardId } = parseOrFail(LogCleanupSchema, { ...queryObject(new URL(request.url).searchParams), ...body });
  const cleaned = await cleanupDeniedLogs(cardId);
  if (!cleaned.ok) refuseApi(cleaned);
  return apiSuccess({ cardId: cleaned.cardId, deleted: cleaned.deleted });
}
