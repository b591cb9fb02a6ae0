import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { VisitorPassListQuerySchema } from "~/schemas/visitor-pass";
import { listVisitorPassesPage } from "~/services/visitor-passes.server";
import { apiSuccess, methodNotAllowed, parseQuery } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/visitor-passes?status&userId&search&page&limit (admin): every resident's passes, the latest window first.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const { page, limit, ...filters } = parseQuery(request, VisitorPassListQuerySchema);
  const result = await listVisitorPassesPage(filters, { page, limit });
  return apiSuccess({ passes: result.passes, total: result.total, page, limit, pages: result.pages });
}

export async function action({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}
