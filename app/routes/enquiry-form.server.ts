// The action behind /consulta and /visita: both pages post the same kind of
// form and differ only in schema, wording and where they return to.
import { parseWithZod } from "@conform-to/zod/v4";
import { data } from "@remix-run/node";
import type { $ZodType, output } from "zod/v4/core";
import { createVisitSchema, EnquirySchema } from "~/schemas/enquiry";
import { submitEnquiry, type Enquiry } from "~/services/visitor.server";
import { getClientIp } from "~/utils/client-ip.server";
import { todayInMadrid } from "~/utils/dates";
import { readForm, refusedForm } from "~/utils/form-reply.server";
import { pageUrl } from "~/utils/page-url";
import { successToast } from "~/utils/toast";
import { redirectWithToast } from "~/utils/toast.server";

const SUCCESS = {
  consulta: () => successToast("Consulta Enviada", "Tu consulta ha sido enviada exitosamente. Nos pondremos en contacto contigo pronto."),
  visita: () => successToast("Solicitud Enviada", "Te confirmaremos la visita por email lo antes posible."),
};

const CAPTCHA_FIELDS = ["captchaId", "captchaQuestion", "captchaAnswer", "intent"];

export async function enquiryFormAction(request: Request, kind: Enquiry["kind"]) {
  const formData = await readForm(request);
  if (formData.get("intent") === "refresh-captcha") {
    // The loader runs again after this action and brings a new question;
    // what was typed comes back so nothing is lost.
    const values = Object.fromEntries([...formData].filter(([key]) => !CAPTCHA_FIELDS.includes(key)));
    return data({ values, result: undefined });
  }
  return kind === "visita"
    ? submitForm(request, formData, createVisitSchema({ today: todayInMadrid() }), (input) => ({ kind, input }))
    : submitForm(request, formData, EnquirySchema, (input) => ({ kind, input }));
}

async function submitForm<S extends $ZodType>(request: Request, formData: FormData, schema: S, toEnquiry: (input: output<S>) => Enquiry) {
  const submission = parseWithZod(formData, { schema });
  if (submission.status !== "success") return refusedForm(submission);
  const enquiry = toEnquiry(submission.value);
  const submitted = await submitEnquiry(enquiry, { ip: getClientIp(request) });
  if (!submitted.ok) return refusedForm(submitted, { submission, hideFields: ["captchaAnswer"] });
  return redirectWithToast(pageUrl(request), SUCCESS[enquiry.kind]());
}
