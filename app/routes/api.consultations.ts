import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { ConsultationListQuerySchema } from "~/schemas/consultation";
import { listConsultationsPage } from "~/services/consultations.server";
import { apiSuccess, methodNotAllowed, parseQuery } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/consultations?page&limit&status&search (admin): newest first.
// The public calls are /api/consultations/submit and /captcha.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const { page, limit, ...filters } = parseQuery(request, ConsultationListQuerySchema);
  const result = await listConsultationsPage(filters, { page, limit });
  return apiSuccess({
    consultations: result.consultations,
    pagination: { page, limit, total: result.total, pages: result.pages },
    stats: result.stats,
  });
}

export async function action({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}
