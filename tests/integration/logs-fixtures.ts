// Shared by the logs-*.test.ts files: access log rows written straight into
// the table (exact timestamps and fields), and calls of the log routes.
import { randomBytes, randomUUID } from "node:crypto";
import { accessLogs, type Door } from "~/db/schema";
import type { AccessReason } from "~/access/reasons";
import { getDb } from "~/utils/db.server";
import { getSessionStorage } from "~/utils/session.server";
import { callRoute } from "../setup/route";

export type LogSeed = {
  at: number;
  cardNumber: string;
  door?: Pick<Door, "id" | "doorId" | "name"> | null;
  granted?: boolean;
  reason?: AccessReason;
  cardId?: string | null;
  username?: string | null;
  isAnonymous?: boolean;
  offline?: boolean;
  ipAddress?: string | null;
};

/** Inserts rows in the given order (later rows sort first among equal timestamps); returns their ids. */
export async function insertLogs(seeds: LogSeed[]) {
  const rows = seeds.map((seed) => {
    const granted = seed.granted ?? true;
    return {
      id: randomUUID(),
      timestamp: new Date(seed.at),
      cardId: seed.cardId ?? null,
      cardNumber: seed.cardNumber,
      doorId: seed.door?.id ?? null,
      doorCode: seed.door?.doorId ?? "unknown-door",
      doorName: seed.door?.name ?? null,
      userId: null,
      username: seed.username ?? null,
      accessGranted: granted,
      reason: seed.reason ?? (granted ? "granted" : "no_permission"),
      isAnonymous: seed.isAnonymous ?? false,
      offline: seed.offline ?? false,
      source: "reader",
      ipAddress: "ipAddress" in seed ? seed.ipAddress : "192.0.2.10",
    } as const;
  });
  for (let i = 0; i < rows.length; i += 500) await getDb().insert(accessLogs).values(rows.slice(i, i + 500));
  return rows.map((row) => row.id);
}

/** A fresh upper-case hex prefix, so each test's card numbers are its own. */
export function hexPrefix(bytes = 3) {
  return randomBytes(bytes).toString("hex").toUpperCase();
}

export async function sessionCookie(userId: string) {
  const storage = getSessionStorage();
  const session = await storage.getSession();
  session.set("userId", userId);
  return (await storage.commitSession(session)).split(";")[0]!;
}

export async function callPage(fn: Parameters<typeof callRoute>[0], request: Request) {
  return callRoute(fn, request);
}

export async function flashedToast(response: Response) {
  const cookie = response.headers.get("Set-Cookie")!.split(";")[0]!;
  const session = await getSessionStorage().getSession(cookie);
  return session.get("toast");
}
