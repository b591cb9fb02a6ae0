import type { ActionFunctionArgs } from "@remix-run/node";
import { createVisitSchema, EnquirySchema } from "~/schemas/enquiry";
import { submitEnquiry, type Enquiry } from "~/services/visitor.server";
import { apiSuccess, methodNotAllowed, parseOrFail, readJsonBody, refuseApi } from "~/utils/api.server";
import { requireSameOrigin } from "~/utils/auth.server";
import { getClientIp } from "~/utils/client-ip.server";
import { todayInMadrid } from "~/utils/dates";

export async function loader() {
  methodNotAllowed();
}

// POST /api/consultations/submit: enquiries and visit requests share this
// call; a body with `fecha` or `hora` is a visit request and gets the visit
// form's rules.
export async function action({ request }: ActionFunctionArgs) {
  requireSameOrigin(request);
  if (request.method !== "POST") methodNotAllowed();
  const body = await readJsonBody(request);
  const isVisit = typeof body === "object" && body !== null && ("fecha" in body || "hora" in body);
  const enquiry: Enquiry = isVisit
    ? { kind: "visita", input: parseOrFail(createVisitSchema({ today: todayInMadrid() }), body) }
    : { kind: "consulta", input: parseOrFail(EnquirySchema, body) };
  const submitted = await submitEnquiry(enquiry, { ip: getClientIp(request) });
  if (!submitted.ok) refuseApi(submitted);
  return apiSuccess({ message: "Tu consulta ha sido enviada exitosamente. Nos pondremos en contacto contigo pronto." });
}
