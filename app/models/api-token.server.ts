import { and, eq, gt, lte } from "drizzle-orm";
import { apiTokens, users } from "~/db/schema";
import { createId, randomToken, sha256 } from "~/utils/crypto.server";
import { getDb } from "~/utils/db.server";

export const API_TOKEN_TTL_MS = 12 * 60 * 60 * 1000;

/** Issues a bearer token; only its hash is stored, the caller sees it once. */
export async function issueApiToken(userId: string, now = Date.now()) {
  const token = randomToken(32);
  const expiresAt = new Date(now + API_TOKEN_TTL_MS);
  await getDb().insert(apiTokens).values({
    id: createId(),
    userId,
    tokenHash: sha256(token),
    expiresAt,
  });
  return { token, expiresAt };
}

/** The active user a bearer token belongs to, or null. */
export async function getUserByApiToken(token: string, now = Date.now()) {
  const [row] = await getDb()
    .select({ user: users, tokenId: apiTokens.id })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.userId))
    .where(and(eq(apiTokens.tokenHash, sha256(token)), gt(apiTokens.expiresAt, new Date(now))))
    .limit(1);
  if (!row || row.user.status !== "active") return null;
  return row.user;
}

export async function revokeApiTokensOfUser(userId: string) {
  await getDb().delete(apiTokens).where(eq(apiTokens.userId, userId));
}

export async function purgeExpiredApiTokens(now = Date.now()) {
  await getDb().delete(apiTokens).where(lte(apiTokens.expiresAt, new Date(now)));
}
