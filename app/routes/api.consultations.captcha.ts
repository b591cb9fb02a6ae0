import { newCaptcha } from "~/services/visitor.server";
import { apiSuccess, methodNotAllowed } from "~/utils/api.server";

// GET /api/consultations/captcha: a new anti-spam question (SPEC §7).
export async function loader() {
  const { question, captchaId } = await newCaptcha();
  return apiSuccess({ question, captchaId }, 200, { "Cache-Control": "no-store" });
}

export async function action() {
  methodNotAllowed();
}
