import type { MetaFunction } from "@remix-run/node";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { PagePlaceholder } from "~/components/placeholder";

export const meta: MetaFunction = () => [{ title: "Consulta de Reserva" }];

export default function Page() {
  return <PagePlaceholder title="Consulta de Reserva" />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
