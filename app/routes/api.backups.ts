import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { backupSettings, createBackup, lastBackupFailure, listBackups, toBackupJson } from "~/services/backups.server";
import { apiSuccess, methodNotAllowed, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/backups (admin): the archives, newest first, the last failure and the settings.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const [backups, failure] = await Promise.all([listBackups(), lastBackupFailure()]);
  return apiSuccess(
    {
      backups: backups.map(toBackupJson),
      lastFailure: failure ? { at: failure.at.toISOString(), trigger: failure.trigger, message: failure.message } : null,
      settings: backupSettings(),
    },
    200,
    { "Cache-Control": "no-store" },
  );
}

// POST /api/backups (admin): makes one now (trigger "manual").
export async function action({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "POST") methodNotAllowed();
  const created = await createBackup("manual");
  if (created.ok) return apiSuccess(toBackupJson(created.backup), 201);
  if ("failed" in created) return Response.json({ success: false, error: { message: `No se pudo crear la copia de seguridad: ${created.message}` } }, { status: 500 });
  refuseApi(created);
}
