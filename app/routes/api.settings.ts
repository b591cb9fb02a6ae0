import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { SettingsUpdateSchema } from "~/schemas/access-group";
import { getAccessSettings, updateAccessSettings } from "~/services/access-groups.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/settings: {defaultAccessGroupId}.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  return apiSuccess(await getAccessSettings());
}

// PUT /api/settings {defaultAccessGroupId: id | null}
export async function action({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "PUT") methodNotAllowed();
  const updated = await updateAccessSettings(await parseJsonBody(request, SettingsUpdateSchema));
  if (!updated.ok) refuseApi(updated);
  return apiSuccess(updated.settings);
}
