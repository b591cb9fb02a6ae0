import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { cancelVisitorPass } from "~/services/visitor-passes.server";
import { apiSuccess, methodNotAllowed, refuseApi } from "~/utils/api.server";
import { requireApiUser } from "~/utils/auth.server";

export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiUser(request);
  methodNotAllowed();
}

// DELETE /api/user-portal/visitor-passes/{id}: 'Anular invitación'; another resident's pass answers 404.
export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireApiUser(request);
  if (request.method !== "DELETE") methodNotAllowed();
  const cancelled = await cancelVisitorPass(params.id ?? "", { createdBy: user.id });
  if (!cancelled.ok) refuseApi(cancelled);
  return apiSuccess(cancelled.pass);
}
