import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { PagePlaceholder } from "~/components/placeholder";
import { requireUser } from "~/utils/auth.server";
import { getEnv } from "~/utils/env.server";
import { pageMeta } from "~/utils/meta";

export const meta = pageMeta("Mi Portal");

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  return {
    firstName: user.firstName ?? user.username,
    unitNumber: user.unitNumber,
    buildingName: user.buildingName ?? getEnv().BUILDING_NAME,
  };
}

export async function action({ request }: ActionFunctionArgs) {
  await requireUser(request);
  throw new Response("Acción no disponible", { status: 400 });
}

export default function Portal() {
  const { firstName, unitNumber, buildingName } = useLoaderData<typeof loader>();
  return (
    <PagePlaceholder title={`Bienvenido, ${firstName}`}>
      {unitNumber ? `Unidad ${unitNumber} · ` : ""}
      {buildingName}
    </PagePlaceholder>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
