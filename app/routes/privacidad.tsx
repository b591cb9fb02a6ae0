import type { MetaFunction } from "@remix-run/node";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { PagePlaceholder } from "~/components/placeholder";

export const meta: MetaFunction = () => [{ title: "Política de Privacidad" }];

export default function Page() {
  return <PagePlaceholder title="Política de Privacidad" />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
