import type { LoaderFunctionArgs } from "@remix-run/node";
import { LogExportQuerySchema } from "~/schemas/access-log";
import { accessLogCsvResponse } from "~/services/access-log-admin.server";
import { queryObject } from "~/services/card-admin.server";
import { methodNotAllowed, parseOrFail } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/logs/export?export=csv&status&doorId&dateRange&search: the filtered rows as a streamed CSV.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const { export: _format, ...filters } = parseOrFail(LogExportQuerySchema, queryObject(new URL(request.url).searchParams));
  return accessLogCsvResponse(filters);
}

export async function action() {
  methodNotAllowed();
}
