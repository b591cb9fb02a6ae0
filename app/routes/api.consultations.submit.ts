import type { ActionFunctionArgs } from "@remix-run/node";
import { createVisitSchema, EnquirySchema } from "~/schemas/enquiry";
import { submitEnquiry } from "~/services/visitor.server";
import { apiSuccess, methodNotAllowed, parseOrFail, readJsonBody } from "~/utils/api.server";
import { apiError } from "~/utils/auth.server";
import { addDays, todayInMadrid } from "~/utils/dates";
import { getClientIp } from "~/utils/request.server";

export async function loader() {
  methodNotAllowed();
}

// Enquiries and visit requests share this call; a body with `fecha` or `hora`
// is a visit request and gets the visit form's rules.
export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") methodNotAllowed();
  const body = await readJsonBody(request);
  const isVisit = typeof body === "object" && body !== null && ("fecha" in body || "hora" in body);
  const ip = getClientIp(request);
  const result = isVisit
    ? await submitEnquiry(
        { kind: "visita", input: parseOrFail(createVisitSchema({ tomorrow: addDays(todayInMadrid(), 1) }), body) },
        { ip },
      )
    : await submitEnquiry({ kind: "consulta", input: parseOrFail(EnquirySchema, body) }, { ip });
  if (!result.ok) apiError(result.status, result.message);
  return apiSuccess({ message: "Tu consulta ha sido enviada exitosamente. Nos pondremos en contacto contigo pronto." });
}
