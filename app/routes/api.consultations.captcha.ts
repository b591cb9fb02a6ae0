import { createCaptcha } from "~/models/captcha.server";
import { apiSuccess } from "~/utils/api.server";

export async function loader() {
  const { question, captchaId } = await createCaptcha();
  return apiSuccess({ question, captchaId }, 200, { "Cache-Control": "no-store" });
}
