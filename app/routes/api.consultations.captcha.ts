import type { LoaderFunctionArgs } from "@remix-run/node";
import { newCaptchaForApi } from "~/services/visitor.server";
import { apiSuccess, methodNotAllowed, refuseApi } from "~/utils/api.server";
import { getClientIp } from "~/utils/client-ip.server";

// GET /api/consultations/captcha: a new anti-spam question (SPEC §7), limited per address.
export async function loader({ request }: LoaderFunctionArgs) {
  const created = await newCaptchaForApi({ ip: getClientIp(request) });
  if (!created.ok) refuseApi(created);
  return apiSuccess({ question: created.question, captchaId: created.captchaId }, 200, { "Cache-Control": "no-store" });
}

export async function action() {
  methodNotAllowed();
}
