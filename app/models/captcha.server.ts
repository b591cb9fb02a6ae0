// Anti-spam challenges that have been answered (app/services/captcha-challenge.server.ts
// makes them without storing anything): each challenge id is recorded on its
// first answer, right or wrong, so it can never be answered twice.
import { lte } from "drizzle-orm";
import { captchaChallenges } from "~/db/schema";
import { getDb } from "~/utils/db.server";

/** Records the challenge as answered; false when it already was (one INSERT decides concurrent answers). */
export async function markCaptchaAnswered(captchaId: string, expiresAt: Date, now = new Date()) {
  const inserted = await getDb()
    .insert(captchaChallenges)
    .values({ id: captchaId, answerHash: "", expiresAt, usedAt: now })
    .onConflictDoNothing()
    .returning({ id: captchaChallenges.id });
  return inserted.length === 1;
}

/** Answered challenges are kept only until they would have expired anyway. */
export async function purgeExpiredCaptchas(now = Date.now()) {
  await getDb()
    .delete(captchaChallenges)
    .where(lte(captchaChallenges.expiresAt, new Date(now - 60_000)));
}
