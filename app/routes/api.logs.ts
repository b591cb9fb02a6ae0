import type { LoaderFunctionArgs } from "@remix-run/node";
import { LogListQuerySchema } from "~/schemas/access-log";
import { listLogsForApi } from "~/services/access-log-admin.server";
import { queryObject } from "~/services/card-admin.server";
import { apiSuccess, methodNotAllowed, parseOrFail } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/logs?page&limit&status&doorId&dateRange&search (a cache-busting t or _ is ignored)
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const query = parseOrFail(LogListQuerySchema, queryObject(new URL(request.url).searchParams));
  return apiSuccess(await listLogsForApi(query));
}

export async function action() {
  methodNotAllowed();
}
