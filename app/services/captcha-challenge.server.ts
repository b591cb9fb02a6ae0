// The arithmetic anti-spam question of the enquiry and visit forms. A
// challenge is a signed token (HMAC with the session secret) holding its
// nonce, its expiry and a MAC of its answer, so showing a form writes
// nothing; answering it records the nonce (models/captcha.server.ts), so each
// challenge is answered once, within 10 minutes.
import crypto from "node:crypto";
import { markCaptchaAnswered } from "~/models/captcha.server";
import { getSessionSecret } from "~/utils/data-dir.server";

export const CAPTCHA_TTL_MS = 10 * 60_000;
export const CAPTCHA_ID_PATTERN = /^[A-Za-z0-9_-]{16}\.[0-9a-z]{1,12}\.[A-Za-z0-9_-]{43}$/;

function mac(text: string) {
  return crypto.createHmac("sha256", getSessionSecret()).update(`captcha:${text}`).digest("base64url");
}

export function createCaptcha(now = Date.now()) {
  const a = crypto.randomInt(1, 10);
  const b = crypto.randomInt(1, 10);
  const add = crypto.randomInt(0, 2) === 0 || a === b;
  const [left, right] = add ? [a, b] : [Math.max(a, b), Math.min(a, b)];
  const answer = add ? left + right : left - right;
  const nonce = crypto.randomBytes(12).toString("base64url");
  const expires = (now + CAPTCHA_TTL_MS).toString(36);
  return {
    captchaId: `${nonce}.${expires}.${mac(`${nonce}.${expires}.${answer}`)}`,
    question: `¿Cuánto es ${left} ${add ? "+" : "-"} ${right}?`,
  };
}

/**
 * True when the answer is right and the challenge unexpired and unanswered.
 * Any answer, right or wrong, uses the challenge up, so guessing means
 * fetching a new one each time.
 */
export async function answerCaptcha(captchaId: string, answer: string, now = Date.now()) {
  if (!CAPTCHA_ID_PATTERN.test(captchaId)) return false;
  const [nonce, expires, signature] = captchaId.split(".") as [string, string, string];
  const expiresAt = Number.parseInt(expires, 36);
  if (!(expiresAt > now)) return false;
  if (!(await markCaptchaAnswered(`${nonce}.${expires}`, new Date(expiresAt), new Date(now)))) return false;
  const given = Number.parseInt(answer, 10);
  if (!Number.isSafeInteger(given)) return false;
  const expected = Buffer.from(mac(`${nonce}.${expires}.${given}`));
  return crypto.timingSafeEqual(expected, Buffer.from(signature));
}
