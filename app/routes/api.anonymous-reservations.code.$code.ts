import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { LookupSchema } from "~/schemas/reservation";
import { findGuestReservation, toGuestLookupView } from "~/services/visitor.server";
import { apiSuccess, methodNotAllowed, parseOrFail, readJsonBody, refuseApi } from "~/utils/api.server";
import { requireSameOrigin } from "~/utils/auth.server";
import { getClientIp } from "~/utils/client-ip.server";

// The guest's email is required: a code alone must never reveal a guest's data.
// It may come as ?email= (SPEC §7; kept out of the request log), in the
// X-Guest-Email header, or in a POST body {email}.
async function lookup(request: Request, code: string | undefined, email: unknown) {
  const input = parseOrFail(LookupSchema, { code, email: email ?? "" });
  const found = await findGuestReservation(input.code, input.email, { ip: getClientIp(request) });
  if (!found.ok) refuseApi(found);
  return apiSuccess(await toGuestLookupView(found.reservation), 200, { "Cache-Control": "no-store" });
}

// GET /api/anonymous-reservations/code/{code}?email=… (or X-Guest-Email)
export async function loader({ request, params }: LoaderFunctionArgs) {
  const email = request.headers.get("x-guest-email") ?? new URL(request.url).searchParams.get("email");
  return lookup(request, params.code, email);
}

// POST /api/anonymous-reservations/code/{code} {email}
export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  if (request.method !== "POST") methodNotAllowed();
  const body = await readJsonBody(request);
  return lookup(request, params.code, typeof body === "object" && body !== null ? (body as { email?: unknown }).email : undefined);
}
