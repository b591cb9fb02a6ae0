import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { z } from "zod";
import { getLockdown, setLockdown } from "~/services/lockdown.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

const LockdownSchema = z.object({
  active: z.boolean({ error: "active debe ser true o false" }),
  reason: z.string().trim().max(200, "El motivo admite como máximo 200 caracteres").nullish(),
});

// GET /api/building/lockdown: {active, reason, since}.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  return apiSuccess(await getLockdown());
}

// POST /api/building/lockdown {active, reason}: every door to emergency (only emergency cards open), or back as it was.
export async function action({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "POST") methodNotAllowed();
  const changed = await setLockdown(await parseJsonBody(request, LockdownSchema));
  if (!changed.ok) refuseApi(changed);
  return apiSuccess(changed.lockdown);
}
