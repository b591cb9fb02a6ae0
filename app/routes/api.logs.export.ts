import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { LogExportQuerySchema } from "~/schemas/access-log";
import { accessLogCsv } from "~/services/access-log-export.server";
import { methodNotAllowed, parseQuery } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";
import { downloadResponse } from "~/utils/download.server";

// GET /api/logs/export?export=csv&status&doorId&dateRange&search: the filtered rows as a streamed CSV.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const { export: _format, ...filters } = parseQuery(request, LogExportQuerySchema);
  return downloadResponse(accessLogCsv(filters), { acceptEncoding: request.headers.get("Accept-Encoding") });
}

export async function action({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}
