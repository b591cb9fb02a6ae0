import type { ActionFunctionArgs } from "@remix-run/node";
import * as z from "zod/mini";
import { LookupSchema } from "~/schemas/reservation";
import { cancelGuestReservation, toGuestView } from "~/services/visitor.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, parseOrFail, refuseApi } from "~/utils/api.server";
import { requireSameOrigin } from "~/utils/auth.server";
import { getClientIp } from "~/utils/client-ip.server";

const CancelBody = z.object({ guestEmail: LookupSchema.shape.email });

export async function loader() {
  methodNotAllowed();
}

// PUT /api/anonymous-reservations/code/{code}/cancel {guestEmail}
export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  if (request.method !== "PUT") methodNotAllowed();
  const { guestEmail } = await parseJsonBody(request, CancelBody);
  const code = parseOrFail(LookupSchema.shape.code, params.code);
  const cancelled = await cancelGuestReservation(code, guestEmail, { ip: getClientIp(request) });
  if (!cancelled.ok) refuseApi(cancelled);
  return apiSuccess(toGuestView(cancelled.reservation));
}
