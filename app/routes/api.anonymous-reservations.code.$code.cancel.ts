import type { ActionFunctionArgs } from "@remix-run/node";
import { z } from "zod";
import { toGuestView } from "~/models/reservation.server";
import { LookupSchema } from "~/schemas/reservation";
import { cancelGuestReservation } from "~/services/visitor.server";
import { apiSuccess, methodNotAllowed, parseJsonBody } from "~/utils/api.server";
import { apiError } from "~/utils/auth.server";
import { getClientIp } from "~/utils/request.server";

const CancelBody = z.object({ guestEmail: LookupSchema.shape.email });

export async function loader() {
  methodNotAllowed();
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "PUT") methodNotAllowed();
  const { guestEmail } = await parseJsonBody(request, CancelBody);
  const code = LookupSchema.shape.code.safeParse(params.code);
  if (!code.success) apiError(400, "Por favor complete todos los campos");
  const result = await cancelGuestReservation(code.data, guestEmail, { ip: getClientIp(request) });
  if (!result.ok) apiError(result.status, result.message);
  return apiSuccess(toGuestView(result.reservation));
}
