import { getFormProps } from "@conform-to/react";
import type { ActionFunctionArgs } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { CAPTCHA_HOLES, CaptchaField } from "~/components/captcha-field";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { FormAlert, HoneypotField, InputField, SharedFieldMessage, TextareaField, useFreshFormKey, useSchemaForm } from "~/components/forms";
import { PrivacyNotice } from "~/components/privacy-notice";
import { EnquirySchema } from "~/schemas/enquiry";
import { newCaptcha } from "~/services/visitor.server";
import { requireSameOrigin } from "~/utils/auth.server";
import { enquiryFormAction } from "./enquiry-form.server";
import { pageMeta } from "~/utils/meta";
import { cachedPageHandle } from "~/utils/page-handle";

export const meta = pageMeta("Consulta");
export const handle = cachedPageHandle(CAPTCHA_HOLES);

export async function loader() {
  return { captcha: await newCaptcha() };
}

export async function action({ request }: ActionFunctionArgs) {
  requireSameOrigin(request);
  return enquiryFormAction(request, "consulta");
}

export default function EnquiryPage() {
  const { captcha } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const formKey = useFreshFormKey();
  const [form, fields] = useSchemaForm(EnquirySchema, {
    id: "enquiry",
    lastResult: actionData?.result,
    defaultValue: actionData && "values" in actionData ? (actionData.values ?? undefined) : undefined,
  });
  const submitting = navigation.state === "submitting" && navigation.formData?.get("intent") !== "refresh-captcha";

  return (
    <>
      <h1>Consulta</h1>
      <p>¿Tienes dudas sobre estancias, precios o el espacio de coworking? Escríbenos y te responderemos pronto.</p>
      <Form method="post" {...getFormProps(form)} key={formKey} className="form card">
        <FormAlert id={form.errorId} title="No se pudo enviar la consulta" errors={form.errors} />
        <SharedFieldMessage message="Por favor completa todos los campos" errors={form.allErrors}>
          <InputField label="Nombre" meta={fields.nombre} autoComplete="name" />
          <div className="field-row">
            <InputField label="Email" meta={fields.email} type="email" autoComplete="email" />
            <InputField label="Teléfono" meta={fields.telefono} type="tel" autoComplete="tel" />
          </div>
          <TextareaField label="Mensaje" meta={fields.mensaje} rows={5} />
          <CaptchaField key={captcha.captchaId} captcha={captcha} meta={fields.captchaAnswer} />
          <HoneypotField formId="enquiry" />
          <PrivacyNotice purpose="responder a tu consulta" retention="un año desde tu último mensaje" />
        </SharedFieldMessage>
        <button type="submit" className="button" disabled={submitting}>
          {submitting ? "Enviando..." : "Enviar Consulta"}
        </button>
      </Form>
    </>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
