// The action behind /consulta and /visita: both pages post the same kind of
// form and differ only in schema, wording and where they return to.
import { parseWithZod } from "@conform-to/zod/v4";
import { data } from "@remix-run/node";
import { createVisitSchema, EnquirySchema } from "~/schemas/enquiry";
import { addDays, todayInMadrid } from "~/utils/dates";
import { getClientIp } from "~/utils/request.server";
import type { Toast } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";
import type { z } from "zod";
import { submitEnquiry, type Enquiry } from "./visitor.server";

const SUCCESS: Record<"consulta" | "visita", Toast> = {
  consulta: {
    type: "success",
    title: "Consulta Enviada",
    description: "Tu consulta ha sido enviada exitosamente. Nos pondremos en contacto contigo pronto.",
  },
  visita: {
    type: "success",
    title: "Solicitud Enviada",
    description: "Te confirmaremos la visita por email lo antes posible.",
  },
};

const CAPTCHA_FIELDS = ["captchaId", "captchaQuestion", "captchaAnswer", "intent"];

export async function enquiryPageAction(request: Request, kind: "consulta" | "visita") {
  const formData = await request.formData();
  if (formData.get("intent") === "refresh-captcha") {
    // The loader runs again after this action and brings a new question;
    // what was typed comes back so nothing is lost.
    const values = Object.fromEntries([...formData].filter(([key]) => !CAPTCHA_FIELDS.includes(key)));
    return data({ values, result: undefined, toast: null });
  }
  return kind === "visita"
    ? submitForm(request, formData, createVisitSchema({ tomorrow: addDays(todayInMadrid(), 1) }), (input) => ({ kind, input }))
    : submitForm(request, formData, EnquirySchema, (input) => ({ kind, input }));
}

async function submitForm<S extends z.ZodType>(
  request: Request,
  formData: FormData,
  schema: S,
  toEnquiry: (input: z.output<S>) => Enquiry,
) {
  const submission = parseWithZod(formData, { schema });
  if (submission.status !== "success") {
    return data({ values: null, result: submission.reply(), toast: null }, { status: 400 });
  }
  const enquiry = toEnquiry(submission.value);
  const result = await submitEnquiry(enquiry, { ip: getClientIp(request) });
  if (!result.ok) {
    const toast: Toast = { id: crypto.randomUUID(), type: "error", title: "Error", description: result.message };
    return data(
      { values: null, result: submission.reply({ formErrors: [result.message], hideFields: ["captchaAnswer"] }), toast },
      { status: result.status },
    );
  }
  return redirectWithToast(request, new URL(request.url).pathname, SUCCESS[enquiry.kind]);
}
