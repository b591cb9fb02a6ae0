import { GeneralErrorBoundary } from "~/components/error-boundary";
import { pageMeta } from "~/utils/meta";

export const meta = pageMeta("Página no encontrada");

// Any path no route matches: a Spanish 404 inside the site's layout.
export async function loader() {
  throw new Response("No encontrado", { status: 404 });
}

export default function NotFound() {
  return null;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
