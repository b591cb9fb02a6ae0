import type { LoaderFunctionArgs } from "@remix-run/node";
import { downloadBackup } from "~/services/backups.server";
import { requireAdmin } from "~/utils/auth.server";
import { downloadResponse } from "~/utils/download.server";
import { throwRefusal } from "~/utils/refusal.server";

// GET /admin/copias/<name>: the screen's 'Descargar' (only names the backup folder lists; no-store).
export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const download = await downloadBackup(params.name ?? "");
  if (!download.ok) throwRefusal(download);
  return downloadResponse(download.download);
}
