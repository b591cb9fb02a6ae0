import { getFormProps } from "@conform-to/react";
import type { ActionFunctionArgs } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { CAPTCHA_HOLES, CaptchaField } from "~/components/captcha-field";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { FormAlert, HoneypotField, InputField, SelectField, SharedFieldMessage, TextareaField, useFreshFormKey, useSchemaForm } from "~/components/forms";
import { PrivacyNotice } from "~/components/privacy-notice";
import { createVisitSchema, VISIT_HOURS, VISIT_MAX_DAYS_AHEAD } from "~/schemas/enquiry";
import { newCaptcha } from "~/services/visitor.server";
import { requireSameOrigin } from "~/utils/auth.server";
import { enquiryFormAction } from "./enquiry-form.server";
import { addDays, todayInMadrid } from "~/utils/dates";
import { pageMeta } from "~/utils/meta";
import { cachedPageHandle } from "~/utils/page-handle";

export const meta = pageMeta("Programa tu Visita");
export const handle = cachedPageHandle(CAPTCHA_HOLES);

export async function loader() {
  const today = todayInMadrid();
  return { captcha: await newCaptcha(), today, tomorrow: addDays(today, 1), lastDay: addDays(today, VISIT_MAX_DAYS_AHEAD) };
}

export async function action({ request }: ActionFunctionArgs) {
  requireSameOrigin(request);
  return enquiryFormAction(request, "visita");
}

export default function VisitPage() {
  const { captcha, today, tomorrow, lastDay } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const formKey = useFreshFormKey();
  const schema = createVisitSchema({ today });
  const [form, fields] = useSchemaForm(schema, {
    id: "visit",
    lastResult: actionData?.result,
    defaultValue: actionData && "values" in actionData ? (actionData.values ?? undefined) : undefined,
  });
  const submitting = navigation.state === "submitting" && navigation.formData?.get("intent") !== "refresh-captcha";

  return (
    <>
      <h1>Programa tu Visita</h1>
      <p>
        Ven a conocer la casa. Elige el día y la hora que prefieras; las visitas se solicitan con al menos un día de
        antelación y te confirmaremos la cita por email.
      </p>
      <Form method="post" {...getFormProps(form)} key={formKey} className="form card">
        <FormAlert id={form.errorId} title="No se pudo enviar la solicitud" errors={form.errors} />
        <SharedFieldMessage message="Por favor completa todos los campos obligatorios" errors={form.allErrors}>
          <InputField label="Nombre completo" meta={fields.nombre} autoComplete="name" />
          <div className="field-row">
            <InputField label="Email" meta={fields.email} type="email" autoComplete="email" />
            <InputField label="Teléfono" meta={fields.telefono} type="tel" autoComplete="tel" />
          </div>
          <div className="field-row">
            <InputField label="Fecha preferida" meta={fields.fecha} type="date" min={tomorrow} max={lastDay} hint="A partir de mañana." />
            <SelectField
              label="Hora preferida"
              meta={fields.hora}
              placeholder="Selecciona una hora"
              options={VISIT_HOURS.map((hour) => ({ value: hour, label: hour }))}
            />
          </div>
          <TextareaField label="Comentarios (opcional)" meta={fields.comentarios} rows={3} />
          <CaptchaField key={captcha.captchaId} captcha={captcha} meta={fields.captchaAnswer} />
          <HoneypotField formId="visit" />
          <PrivacyNotice purpose="organizar tu visita y contactarte sobre ella" retention="un año desde tu solicitud" />
        </SharedFieldMessage>
        <button type="submit" className="button" disabled={submitting}>
          {submitting ? "Enviando..." : "Solicitar Visita"}
        </button>
      </Form>
    </>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
