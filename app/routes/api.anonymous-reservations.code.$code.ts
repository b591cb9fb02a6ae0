import type { LoaderFunctionArgs } from "@remix-run/node";
import { LookupSchema } from "~/schemas/reservation";
import { findGuestReservation, toGuestView } from "~/services/visitor.server";
import { apiSuccess, methodNotAllowed, parseOrFail, refuseApi } from "~/utils/api.server";
import { getClientIp } from "~/utils/client-ip.server";

// GET /api/anonymous-reservations/code/{code}?email=…
// The guest's email is required: a code alone must never reveal a guest's data.
export async function loader({ request, params }: LoaderFunctionArgs) {
  const { code, email } = parseOrFail(LookupSchema, { code: params.code, email: new URL(request.url).searchParams.get("email") ?? "" });
  const found = await findGuestReservation(code, email, { ip: getClientIp(request) });
  if (!found.ok) refuseApi(found);
  return apiSuccess(toGuestView(found.reservation));
}

export async function action() {
  methodNotAllowed();
}
