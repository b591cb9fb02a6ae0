import type { MetaFunction } from "@remix-run/node";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { PagePlaceholder } from "~/components/placeholder";

export const meta: MetaFunction = () => [{ title: "Programa tu Visita" }];

export default function Page() {
  return <PagePlaceholder title="Programa tu Visita" />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
