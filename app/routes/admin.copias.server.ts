// /admin/copias: the backups in the folder, the last failure, and the
// 'Crear copia ahora' form, through app/services/backups.server.ts.
import { formatBytes } from "~/schemas/backup";
import * as backups from "~/services/backups.server";
import { readForm, refusedForm } from "~/utils/form-reply.server";
import { pageUrl } from "~/utils/page-url";
import { throwRefusal } from "~/utils/refusal.server";
import { errorToast, successToast } from "~/utils/toast";
import { redirectWithToast } from "~/utils/toast.server";

export async function loadBackupsPage() {
  const [list, failure] = await Promise.all([backups.listBackups(), backups.lastBackupFailure()]);
  return {
    backups: list.map(backups.toBackupJson),
    failure: failure ? { at: failure.at.toISOString(), trigger: failure.trigger, message: failure.message } : null,
    settings: backups.backupSettings(),
  };
}

const CREATE_FAILED = "No se pudo crear la copia de seguridad";

export async function backupsAction(request: Request) {
  const formData = await readForm(request);
  const intent = String(formData.get("intent") ?? "");
  if (intent !== "create-backup") throwRefusal({ status: 400, message: "Acción no válida" });
  const created = await backups.createBackup("manual");
  if (created.ok) {
    return redirectWithToast(pageUrl(request), successToast("Copia de seguridad creada", `${created.backup.name} (${formatBytes(created.backup.sizeBytes)})`));
  }
  // A failure is recorded and shown above the list: back to it, with the reason.
  if ("failed" in created) return redirectWithToast(pageUrl(request), errorToast(CREATE_FAILED, created.message));
  return refusedForm(created, { intent, toastTitle: CREATE_FAILED });
}
