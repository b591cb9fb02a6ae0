import type { LoaderFunctionArgs } from "@remix-run/node";
import { toGuestView } from "~/models/reservation.server";
import { LookupSchema } from "~/schemas/reservation";
import { findGuestReservation } from "~/services/visitor.server";
import { apiSuccess } from "~/utils/api.server";
import { apiError } from "~/utils/auth.server";
import { getClientIp } from "~/utils/request.server";

// The guest's email is required: a code alone must never reveal a guest's data.
export async function loader({ request, params }: LoaderFunctionArgs) {
  const parsed = LookupSchema.safeParse({ code: params.code, email: new URL(request.url).searchParams.get("email") ?? "" });
  if (!parsed.success) apiError(400, parsed.error.issues[0]!.message);
  const result = await findGuestReservation(parsed.data.code, parsed.data.email, { ip: getClientIp(request) });
  if (!result.ok) apiError(result.status, result.message);
  return apiSuccess(toGuestView(result.reservation));
}
