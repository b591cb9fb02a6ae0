import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { LogListQuerySchema } from "~/schemas/access-log";
import { getAccessLogPage, toAccessLogJson } from "~/services/access-log-review.server";
import { apiSuccess, methodNotAllowed, parseQuery } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/logs?page&limit&status&doorId&dateRange&search (a cache-busting t or _ is ignored):
// a page of rows (not merged) with the stats of the filtered set.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const { page, limit, ...filters } = parseQuery(request, LogListQuerySchema);
  const result = await getAccessLogPage(filters, { page, limit });
  return apiSuccess({
    logs: result.rows.map(toAccessLogJson),
    stats: result.stats,
    total: result.stats.total,
    page,
    limit,
    pages: result.pages,
    // Only when a search matched more rows than the count's bound: `total` and `pages` are then lower bounds.
    ...(result.pagesMoreThan ? { pagesMoreThan: true } : {}),
  });
}

export async function action({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}
