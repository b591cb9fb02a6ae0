import { getFormProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { ActionFunctionArgs } from "@remix-run/node";
import { Form, useActionData, useNavigation } from "@remix-run/react";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { FormAlert, HoneypotField, InputField, SelectField, SharedFieldMessage, TextareaField, useFreshFormKey, useSchemaForm } from "~/components/forms";
import { PrivacyNotice } from "~/components/privacy-notice";
import { PUBLIC_INCIDENT_TYPES, PUBLIC_INCIDENT_URGENCIES, PublicIncidentSchema } from "~/schemas/public-incident";
import { reportPublicIncident } from "~/services/visitor.server";
import { requireSameOrigin } from "~/utils/auth.server";
import { getClientIp } from "~/utils/client-ip.server";
import { readForm, refusedForm } from "~/utils/form-reply.server";
import { successToast } from "~/utils/toast";
import { redirectWithToast } from "~/utils/toast.server";
import { pageMeta } from "~/utils/meta";
import { cachedPageHandle } from "~/utils/page-handle";

export const meta = pageMeta("Comunicar Avería");
export const handle = cachedPageHandle();

export async function action({ request }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const submission = parseWithZod(await readForm(request), { schema: PublicIncidentSchema });
  if (submission.status !== "success") return refusedForm(submission, { intent: "report" });
  const reported = await reportPublicIncident(submission.value, { ip: getClientIp(request) });
  if (!reported.ok) return refusedForm(reported, { intent: "report", submission });
  return redirectWithToast("/incidencias", successToast("Incidencia reportada exitosamente"));
}

const toOptions = (labels: Record<string, string>) => Object.entries(labels).map(([value, label]) => ({ value, label }));

export default function IncidentPage() {
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm(PublicIncidentSchema, {
    id: "public-incident",
    lastResult: actionData?.result,
    defaultValue: { urgencia: "media" },
  });
  const submitting = navigation.state === "submitting";
  const formKey = useFreshFormKey();
  return (
    <>
      <h1>Comunicar Avería</h1>
      <p>Cuéntanos qué ha fallado y dónde. El equipo de mantenimiento recibe el aviso al momento.</p>
      <Form method="post" {...getFormProps(form)} key={formKey} className="form card">
        <FormAlert id={form.errorId} title="No se pudo enviar el aviso" errors={form.errors} />
        <SharedFieldMessage message="Por favor completa todos los campos obligatorios" errors={form.allErrors}>
          <div className="field-row">
            <InputField label="Nombre del propietario o inquilino" meta={fields.nombre} autoComplete="name" />
            <InputField label="Número de planta" meta={fields.departamento} inputMode="numeric" />
          </div>
          <div className="field-row">
            <SelectField label="Tipo de avería" meta={fields.tipo} placeholder="Selecciona un tipo" options={toOptions(PUBLIC_INCIDENT_TYPES)} />
            <SelectField label="Urgencia" meta={fields.urgencia} options={toOptions(PUBLIC_INCIDENT_URGENCIES)} />
          </div>
          <InputField label="Ubicación" meta={fields.ubicacion} placeholder="p. ej. Baño de la 2.ª planta" />
          <TextareaField label="Descripción" meta={fields.descripcion} rows={4} />
          <HoneypotField formId="incident" />
          <PrivacyNotice purpose="gestionar la reparación de la avería" retention="hasta cerrar la incidencia y un año después" />
        </SharedFieldMessage>
        <button type="submit" className="button" disabled={submitting}>
          {submitting ? "Enviando..." : "Enviar Reporte"}
        </button>
      </Form>
    </>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
