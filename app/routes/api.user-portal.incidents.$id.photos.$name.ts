import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { getIncidentPhoto } from "~/services/resident-incidents.server";
import { methodNotAllowed, refuseApi } from "~/utils/api.server";
import { requireApiUser } from "~/utils/auth.server";

// GET /api/user-portal/incidents/{id}/photos/{name}: the photo, for its reporter and admins only.
export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireApiUser(request);
  const photo = await getIncidentPhoto(user, params.id ?? "", params.name ?? "");
  if (!photo.ok) refuseApi(photo);
  return new Response(new Uint8Array(photo.bytes), {
    headers: {
      "Content-Type": photo.contentType,
      "Content-Length": String(photo.bytes.length),
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; img-src 'self'",
      "Content-Disposition": "inline",
      "Cache-Control": "private, max-age=3600",
    },
  });
}

export async function action({ request }: ActionFunctionArgs) {
  await requireApiUser(request);
  methodNotAllowed();
}
