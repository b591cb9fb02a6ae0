import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { cancelVisitorPass } from "~/services/visitor-passes.server";
import { apiSuccess, methodNotAllowed, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}

// DELETE /api/visitor-passes/{id} (admin): 'Anular invitación' on any resident's pass.
export async function action({ request, params }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "DELETE") methodNotAllowed();
  const cancelled = await cancelVisitorPass(params.id ?? "");
  if (!cancelled.ok) refuseApi(cancelled);
  return apiSuccess(cancelled.pass);
}
