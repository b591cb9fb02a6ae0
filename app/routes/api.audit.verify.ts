import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { verifyAuditChain } from "~/services/audit.server";
import { apiSuccess, methodNotAllowed } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/audit/verify (admin): checks the audit trail's hash chain → {ok, checked, firstBadId}.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  return apiSuccess(await verifyAuditChain(), 200, { "Cache-Control": "no-store" });
}

export async function action({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}
