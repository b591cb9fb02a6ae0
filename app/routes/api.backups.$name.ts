import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { downloadBackup } from "~/services/backups.server";
import { methodNotAllowed, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";
import { downloadResponse } from "~/utils/download.server";

// GET /api/backups/<name> (admin): the archive (only names GET /api/backups lists; no-store).
export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const download = await downloadBackup(params.name ?? "");
  if (!download.ok) refuseApi(download);
  return downloadResponse(download.download);
}

export async function action({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}
