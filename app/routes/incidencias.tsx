import type { MetaFunction } from "@remix-run/node";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { PagePlaceholder } from "~/components/placeholder";

export const meta: MetaFunction = () => [{ title: "Comunicar Avería" }];

export default function Page() {
  return <PagePlaceholder title="Comunicar Avería" />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
