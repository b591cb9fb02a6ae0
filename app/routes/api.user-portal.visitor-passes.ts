import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { VisitorPassSchema } from "~/schemas/visitor-pass";
import { createVisitorPass, listResidentVisitorPasses } from "~/services/visitor-passes.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiUser } from "~/utils/auth.server";

// GET /api/user-portal/visitor-passes: the caller's visitor passes, the latest first.
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireApiUser(request);
  return apiSuccess(await listResidentVisitorPasses(user));
}

// POST /api/user-portal/visitor-passes {visitorName, visitorEmail, date, startTime, endTime, doorIds?}:
// the pass with its PIN and QR token (the only answer that carries them).
export async function action({ request }: ActionFunctionArgs) {
  const user = await requireApiUser(request);
  if (request.method !== "POST") methodNotAllowed();
  const created = await createVisitorPass(user, await parseJsonBody(request, VisitorPassSchema));
  if (!created.ok) refuseApi(created);
  return apiSuccess(created.pass, 201);
}
