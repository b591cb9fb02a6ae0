import { getFormProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { safeParse } from "zod/v4/core";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { FormAlert, useSchemaForm } from "~/components/forms";
import { EmailConfirmationSchema } from "~/schemas/reservation";
import { confirmBookingEmail } from "~/services/pending-holds.server";
import { requireSameOrigin } from "~/utils/auth.server";
import { getClientIp } from "~/utils/client-ip.server";
import { formatDateTime } from "~/utils/dates";
import { readForm, refusedForm } from "~/utils/form-reply.server";
import { pageMeta } from "~/utils/meta";
import { successToast } from "~/utils/toast";
import { redirectWithToast } from "~/utils/toast.server";

export const meta = pageMeta("Confirmar tu email");

// The first mail's link (issue 40): /reserva-confirmar?codigo=…&token=…. The
// page only shows a button: a mail scanner that opens the link confirms
// nothing; the guest's POST does (without JavaScript too).
export async function loader({ request }: LoaderFunctionArgs) {
  const parsed = safeParse(EmailConfirmationSchema, Object.fromEntries(new URL(request.url).searchParams));
  return parsed.success ? { link: parsed.data } : { link: null };
}

export async function action({ request }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const formData = await readForm(request);
  const submission = parseWithZod(formData, { schema: EmailConfirmationSchema });
  if (submission.status !== "success") return refusedForm(submission, { toastTitle: "No se ha podido confirmar" });
  const { codigo, token } = submission.value;
  const confirmed = await confirmBookingEmail(codigo, token, { ip: getClientIp(request) });
  if (!confirmed.ok) return refusedForm(confirmed, { submission, toastTitle: "No se ha podido confirmar" });
  const { reservation, alreadyConfirmed } = confirmed;
  const until = reservation.status === "pending" && reservation.expiresAt ? ` Te la guardamos hasta el ${formatDateTime(reservation.expiresAt)} mientras la casa la confirma.` : "";
  return redirectWithToast(
    `/reserva-consulta?${new URLSearchParams({ codigo: reservation.reservationCode })}`,
    successToast(alreadyConfirmed ? "Tu email ya estaba confirmado" : "Email confirmado", `Reserva ${reservation.reservationCode}.${until}`),
  );
}

export default function ConfirmEmailPage() {
  const { link } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const [form] = useSchemaForm(EmailConfirmationSchema, { id: "confirm-email", lastResult: actionData?.result });
  const submitting = navigation.state === "submitting";
  return (
    <>
      <h1>Confirmar tu email</h1>
      {link ? (
        <Form method="post" {...getFormProps(form)} className="form card">
          <FormAlert id={form.errorId} title="Error" errors={form.errors} />
          <p>
            Confirma tu email para que te guardemos la reserva <strong data-testid="reservation-code">{link.codigo}</strong>. Hasta que lo hagas, no
            retenemos ninguna plaza.
          </p>
          <input type="hidden" name="codigo" value={link.codigo} />
          <input type="hidden" name="token" value={link.token} />
          <div className="actions">
            <button type="submit" className="button" disabled={submitting}>
              {submitting ? "Confirmando..." : "Confirmar mi email"}
            </button>
          </div>
        </Form>
      ) : (
        <div className="card">
          <p role="alert">El enlace de confirmación no es válido. Copia el enlace completo del email o haz la reserva de nuevo.</p>
          <p>
            <Link to="/reservar">Hacer una reserva</Link>
          </p>
        </div>
      )}
    </>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
