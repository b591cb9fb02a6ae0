import { getFormProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { Form, useActionData, useNavigation, useSearchParams } from "@remix-run/react";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { FormAlert, InputField, useSchemaForm } from "~/components/forms";
import { LoginSchema } from "~/schemas/login";
import { authenticator, SignInRefused } from "~/services/sign-in.server";
import { createUserSession, getOptionalUser, homeFor, requireSameOrigin, safeRedirect } from "~/utils/auth.server";
import { readForm, refusedForm } from "~/utils/form-reply.server";
import { pageMeta } from "~/utils/meta";
import { cachedPageHandle } from "~/utils/page-handle";

export const meta = pageMeta("Iniciar Sesión");
export const handle = cachedPageHandle();

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await getOptionalUser(request);
  if (user) {
    const redirectTo = new URL(request.url).searchParams.get("redirectTo");
    throw redirect(safeRedirect(redirectTo, homeFor(user)));
  }
  return null;
}

export async function action({ request }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const submission = parseWithZod(await readForm(request.clone()), { schema: LoginSchema });
  if (submission.status !== "success") return refusedForm(submission, { intent: "login" });
  try {
    const signedIn = await authenticator.authenticate("form", request);
    return createUserSession(signedIn, safeRedirect(submission.value.redirectTo, homeFor(signedIn.user)));
  } catch (error) {
    if (!(error instanceof SignInRefused)) throw error;
    return refusedForm(error.refusal, { intent: "login", submission, toastTitle: "Error al iniciar sesión", hideFields: ["password"] });
  }
}

export default function LoginPage() {
  const lastResult = useActionData<typeof action>()?.result;
  const [searchParams] = useSearchParams();
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm(LoginSchema, {
    id: "login",
    lastResult,
  });
  const submitting = navigation.state === "submitting";

  return (
    <div className="card" style={{ maxWidth: "28rem", margin: "2rem auto" }}>
      <h1>Iniciar Sesión</h1>
      <Form method="post" {...getFormProps(form)} className="form">
        <FormAlert id={form.errorId} title="Error al iniciar sesión" errors={form.errors} />
        <input type="hidden" name="redirectTo" value={searchParams.get("redirectTo") ?? ""} />
        <InputField label="Usuario" meta={fields.username} autoComplete="username" autoFocus />
        <InputField label="Contraseña" meta={fields.password} type="password" autoComplete="current-password" />
        <button type="submit" className="button" disabled={submitting}>
          {submitting ? "Iniciando sesión..." : "Iniciar Sesión"}
        </button>
      </Form>
    </div>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
