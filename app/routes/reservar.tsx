import type { MetaFunction } from "@remix-run/node";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { PagePlaceholder } from "~/components/placeholder";

export const meta: MetaFunction = () => [{ title: "Reservar" }];

export default function Page() {
  return <PagePlaceholder title="Reservar" />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
