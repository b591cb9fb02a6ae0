import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { PagePlaceholder } from "~/components/placeholder";
import { requireAdmin } from "~/utils/auth.server";
import { pageMeta } from "~/utils/meta";

export const meta = pageMeta("Gestión de Incidencias");

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return null;
}

export async function action({ request }: ActionFunctionArgs) {
  await requireAdmin(request);
  throw new Response("Acción no disponible", { status: 400 });
}

export default function Page() {
  return <PagePlaceholder title="Gestión de Incidencias" />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
