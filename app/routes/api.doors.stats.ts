import type { LoaderFunctionArgs } from "@remix-run/node";
import { getDoorStats } from "~/models/door.server";
import { apiSuccess } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  return apiSuccess(await getDoorStats());
}
