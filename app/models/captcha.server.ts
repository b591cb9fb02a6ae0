// Arithmetic anti-spam challenges. The server makes the question, keeps only
// a hash of the answer, and accepts each challenge once, within 10 minutes.
import crypto from "node:crypto";
import { and, eq, gt, isNull, lte } from "drizzle-orm";
import { captchaChallenges } from "~/db/schema";
import { createId, sha256 } from "~/utils/crypto.server";
import { getDb } from "~/utils/db.server";

export const CAPTCHA_TTL_MS = 10 * 60_000;

function answerHash(captchaId: string, answer: number) {
  return sha256(`${captchaId}:${answer}`);
}

export async function createCaptcha(now = Date.now()) {
  const a = crypto.randomInt(1, 10);
  const b = crypto.randomInt(1, 10);
  const add = crypto.randomInt(0, 2) === 0 || a === b;
  const [left, right] = add ? [a, b] : [Math.max(a, b), Math.min(a, b)];
  const answer = add ? left + right : left - right;
  const captchaId = createId();
  await getDb()
    .insert(captchaChallenges)
    .values({ id: captchaId, answerHash: answerHash(captchaId, answer), expiresAt: new Date(now + CAPTCHA_TTL_MS) });
  return { captchaId, question: `¿Cuánto es ${left} ${add ? "+" : "-"} ${right}?` };
}

/**
 * Uses the challenge up, right or wrong, so an answer cannot be guessed by
 * retrying; the single UPDATE makes concurrent answers race for one win.
 */
export async function consumeCaptcha(captchaId: string, answer: string, now = Date.now()) {
  const [row] = await getDb()
    .update(captchaChallenges)
    .set({ usedAt: new Date(now) })
    .where(
      and(
        eq(captchaChallenges.id, captchaId),
        isNull(captchaChallenges.usedAt),
        gt(captchaChallenges.expiresAt, new Date(now)),
      ),
    )
    .returning({ answerHash: captchaChallenges.answerHash });
  if (!row) return false;
  const expected = Buffer.from(row.answerHash);
  const given = Buffer.from(answerHash(captchaId, Number.parseInt(answer, 10)));
  return crypto.timingSafeEqual(expected, given);
}

export async function purgeExpiredCaptchas(now = Date.now()) {
  await getDb()
    .delete(captchaChallenges)
    .where(lte(captchaChallenges.expiresAt, new Date(now - 60_000)));
}
