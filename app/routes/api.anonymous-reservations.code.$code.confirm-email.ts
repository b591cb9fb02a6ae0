import type { ActionFunctionArgs } from "@remix-run/node";
import { EmailConfirmationTokenSchema, LookupSchema } from "~/schemas/reservation";
import { confirmBookingEmail } from "~/services/pending-holds.server";
import { toGuestView } from "~/services/visitor.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, parseOrFail, refuseApi } from "~/utils/api.server";
import { requireSameOrigin } from "~/utils/auth.server";
import { getClientIp } from "~/utils/client-ip.server";

export async function loader() {
  methodNotAllowed();
}

// POST /api/anonymous-reservations/code/{code}/confirm-email {token}: the
// first mail's link, as /reserva-confirmar's button sends it (issue 40).
export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  if (request.method !== "POST") methodNotAllowed();
  const { token } = await parseJsonBody(request, EmailConfirmationTokenSchema);
  const code = parseOrFail(LookupSchema.shape.code, params.code);
  const confirmed = await confirmBookingEmail(code, token, { ip: getClientIp(request) });
  if (!confirmed.ok) refuseApi(confirmed);
  return apiSuccess(toGuestView(confirmed.reservation));
}
