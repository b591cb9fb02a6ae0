// The access log and the database side of access decisions. Swipes and
// offline events arrive in batches; each batch is decided and recorded in one
// write transaction: one log row per swipe or event (its id is the row's
// primary key, so redelivery never adds a second row), the cards' usage
// stats, the doors' last access, pending cards for unknown cards and the
// deactivation of expired ones. The caller publishes decisions only after
// this resolves, i.e. once the rows are committed.
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { accessLogs, cardPermissions, cards, doors, users, type AccessLog, type Door } from "~/db/schema";
import type { AccessReason } from "~/access/reasons";
import { decideAccess, decisionDisplay, type HolderFacts } from "~/access/rules";
import { createId } from "~/utils/crypto.server";
import { getDb } from "~/utils/db.server";

export type { AccessLog };

/** Longest text kept from a card id that could not be read. */
const RAW_CARD_LENGTH = 64;

export type SwipeInput = {
  kind: "swipe";
  id: string;
  doorCode: string;
  /** Canonical card id; null when the swipe could not be read (the decision is invalid_request). */
  cardNumber: string | null;
  /** What the swipe carried as card, for the log when it could not be read. */
  rawCard: string;
  source: "reader" | "mobile" | null;
  ipAddress: string | null;
};

export type OfflineEventInput = {
  kind: "event";
  id: string;
  doorCode: string;
  cardNumber: string;
  at: Date;
  granted: boolean;
  reason: AccessReason;
  ipAddress: string | null;
};

export type AccessInput = SwipeInput | OfflineEventInput;

export type SwipeDecision = {
  id: string;
  doorCode: string;
  granted: boolean;
  reason: AccessReason;
  display: { line1: string; line2: string };
  /** The swipe had been recorded already: this repeats its decision. */
  duplicate: boolean;
};

export type AccessBatchResult = {
  decisions: SwipeDecision[];
  /** Cards this batch set inactive because they had expired (their doors' offline lists change). */
  deactivatedCardIds: string[];
};

type CardEntry = {
  card: Pick<typeof cards.$inferSelect, "id" | "status" | "expiresAt" | "isAnonymous" | "userId">;
  holder: (HolderFacts & { username: string }) | null;
};

type Usage = { attempts: number; successes: number; lastUsed: number };

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

/** Decides the swipes and records swipes and offline events, in one write transaction. */
export async function recordAccessBatch(items: AccessInput[], now = new Date()): Promise<AccessBatchResult> {
  if (items.length === 0) return { decisions: [], deactivatedCardIds: [] };
  const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
  const T: [string, number][] = [["start", cpu()]];
  const mark = (n: string) => T.push([n, cpu()]);
  const out = await getDb().transaction(async (tx) => {
    mark('begin');
    // 1. Read every fact the batch needs, a few queries for the whole batch.
    const doorCodes = unique(items.map((item) => item.doorCode));
    const cardNumbers = unique(items.flatMap((item) => (item.cardNumber ? [item.cardNumber] : [])));
    const ids = unique(items.map((item) => item.id));

    const doorRows = await tx.select().from(doors).where(inArray(doors.doorId, doorCodes));
    mark('doors');
    const doorsByCode = new Map<string, Door>(doorRows.map((door) => [door.doorId, door]));

    const cardsByNumber = new Map<string, CardEntry>();
    if (cardNumbers.length > 0) {
      const rows = await tx
        .select({
          id: cards.id,
          cardNumber: cards.cardNumber,
          status: cards.status,
          expiresAt: cards.expiresAt,
          isAnonymous: cards.isAnonymous,
          userId: cards.userId,
          holderStatus: users.status,
          holderFirstName: users.firstName,
          holderUsername: users.username,
        })
        .from(cards)
        .leftJoin(users, eq(users.id, cards.userId))
        .where(inArray(cards.cardNumber, cardNumbers));
      for (const row of rows) {
        cardsByNumber.set(row.cardNumber, {
          card: row,
          holder:
            row.holderStatus && row.holderUsername
              ? { status: row.holderStatus, firstName: row.holderFirstName, username: row.holderUsername }
              : null,
        });
      }
    }

    mark('cards');
    const grantedPairs = new Set<string>();
    const knownCardIds = [...cardsByNumber.values()].map((entry) => entry.card.id);
    if (knownCardIds.length > 0 && doorRows.length > 0) {
      const rows = await tx
        .select({ cardId: cardPermissions.cardId, doorId: cardPermissions.doorId })
        .from(cardPermissions)
        .where(
          and(
            inArray(cardPermissions.cardId, knownCardIds),
            inArray(
              cardPermissions.doorId,
              doorRows.map((door) => door.id),
            ),
            eq(cardPermissions.granted, true),
          ),
        );
      for (const row of rows) grantedPairs.add(`${row.cardId}:${row.doorId}`);
    }

    mark('perms');
    const recorded = new Map<string, { offline: boolean; granted: boolean; reason: AccessReason }>();
    for (const row of await tx
      .select({ id: accessLogs.id, offline: accessLogs.offline, granted: accessLogs.accessGranted, reason: accessLogs.reason })
      .from(accessLogs)
      .where(inArray(accessLogs.id, ids))) {
      recorded.set(row.id, row);
    }

    mark('logs-read');
    // 2. Decide, in arrival order, on the facts as earlier items of the batch left them.
    const decisions: SwipeDecision[] = [];
    const newCards: (typeof cards.$inferInsert)[] = [];
    const expiredCardIds = new Set<string>();
    const newLogs: (typeof accessLogs.$inferInsert)[] = [];
    const overriddenLogs: { id: string; granted: boolean; reason: AccessReason }[] = [];
    const usageByCard = new Map<string, Usage>();
    const lastAccessByDoor = new Map<string, number>();

    const countUsage = (cardId: string, attempts: number, successes: number, at: number) => {
      const usage = usageByCard.get(cardId) ?? { attempts: 0, successes: 0, lastUsed: 0 };
      usage.attempts += attempts;
      usage.successes += successes;
      usage.lastUsed = Math.max(usage.lastUsed, at);
      usageByCard.set(cardId, usage);
    };
    const registerPendingCard = (cardNumber: string, isAnonymous: boolean): CardEntry => {
      const card = { id: createId(), cardNumber, status: "pending" as const, isAnonymous, userId: null, expiresAt: null };
      newCards.push(card);
      const entry = { card, holder: null };
      cardsByNumber.set(cardNumber, entry);
      return entry;
    };

    for (const item of items) {
      const door = doorsByCode.get(item.doorCode) ?? null;
      const previous = recorded.get(item.id);

      if (item.kind === "swipe") {
        const entry = item.cardNumber ? cardsByNumber.get(item.cardNumber) : undefined;
        if (previous) {
          // Redelivered swipe: answer again what was recorded.
          decisions.push({
            id: item.id,
            doorCode: item.doorCode,
            granted: previous.granted,
            reason: previous.reason,
            display: decisionDisplay(previous, door, entry?.holder ?? null),
            duplicate: true,
          });
          continue;
        }
        const outcome = decideAccess({
          validRequest: item.cardNumber !== null,
          door,
          card: entry?.card ?? null,
          holder: entry?.holder ?? null,
          permissionGranted: Boolean(entry && door && grantedPairs.has(`${entry.card.id}:${door.id}`)),
          now,
        });
        let used = entry;
        if (outcome.createPendingCard && item.cardNumber) {
          used = registerPendingCard(item.cardNumber, item.source === "mobile");
        }
        if (outcome.deactivateCard && used) {
          used.card.status = "inactive";
          expiredCardIds.add(used.card.id);
        }
        newLogs.push({
          id: item.id,
          timestamp: now,
          cardId: used?.card.id ?? null,
          cardNumber: item.cardNumber ?? item.rawCard.slice(0, RAW_CARD_LENGTH),
          doorId: door?.id ?? null,
          doorCode: item.doorCode,
          doorName: door?.name ?? null,
          userId: used?.card.userId ?? null,
          username: used?.holder?.username ?? null,
          accessGranted: outcome.granted,
          reason: outcome.reason,
          isAnonymous: used ? used.card.isAnonymous : item.source === "mobile",
          offline: false,
          source: item.source,
          ipAddress: item.ipAddress,
        });
        recorded.set(item.id, { offline: false, granted: outcome.granted, reason: outcome.reason });
        if (used) countUsage(used.card.id, 1, outcome.granted ? 1 : 0, now.getTime());
        if (door) lastAccessByDoor.set(door.id, now.getTime());
        decisions.push({
          id: item.id,
          doorCode: item.doorCode,
          granted: outcome.granted,
          reason: outcome.reason,
          display: decisionDisplay(outcome, door, used?.holder ?? null),
          duplicate: false,
        });
        continue;
      }

      // Offline event: what the door did while it could not reach the app.
      if (previous?.offline) continue; // redelivered
      const entry = cardsByNumber.get(item.cardNumber) ?? registerPendingCard(item.cardNumber, false);
      // Events from a clock running ahead are logged at arrival time.
      const at = Math.min(item.at.getTime(), now.getTime());
      if (previous) {
        // The swipe reached the app but its decision did not reach the door in
        // time: the door acted on its offline decision, so the row says that.
        overriddenLogs.push({ id: item.id, granted: item.granted, reason: item.reason });
        countUsage(entry.card.id, 0, Number(item.granted) - Number(previous.granted), at);
      } else {
        newLogs.push({
          id: item.id,
          timestamp: new Date(at),
          cardId: entry.card.id,
          cardNumber: item.cardNumber,
          doorId: door?.id ?? null,
          doorCode: item.doorCode,
          doorName: door?.name ?? null,
          userId: entry.card.userId,
          username: entry.holder?.username ?? null,
          accessGranted: item.granted,
          reason: item.reason,
          isAnonymous: entry.card.isAnonymous,
          offline: true,
          source: null,
          ipAddress: item.ipAddress,
        });
        countUsage(entry.card.id, 1, item.granted ? 1 : 0, at);
        if (door) lastAccessByDoor.set(door.id, Math.max(lastAccessByDoor.get(door.id) ?? 0, at));
      }
      recorded.set(item.id, { offline: true, granted: item.granted, reason: item.reason });
    }

    mark('decide');
    // 3. Write: a handful of statements for the whole batch.
    if (newCards.length > 0) await tx.insert(cards).values(newCards);
    if (expiredCardIds.size > 0) {
      await tx
        .update(cards)
        .set({ status: "inactive", updatedAt: now })
        .where(and(inArray(cards.id, [...expiredCardIds]), eq(cards.status, "active")));
    }
    mark('cards-w');
    if (newLogs.length > 0) await tx.insert(accessLogs).values(newLogs).onConflictDoNothing();
    for (const log of overriddenLogs) {
      await tx
        .update(accessLogs)
        .set({ offline: true, accessGranted: log.granted, reason: log.reason })
        .where(eq(accessLogs.id, log.id));
    }
    mark('logs-w');
    if (usageByCard.size > 0) {
      const rows = [...usageByCard].map(
        ([cardId, usage]) => sql`(${cardId}, ${usage.attempts}, ${usage.successes}, ${usage.lastUsed})`,
      );
      await tx.run(sql`
        WITH usage(card_id, attempts, successes, last_used) AS (VALUES ${sql.join(rows, sql`, `)})
        UPDATE cards SET
          total_access_attempts = total_access_attempts + usage.attempts,
          successful_accesses = successful_accesses + usage.successes,
          last_used_at = max(coalesce(last_used_at, 0), usage.last_used)
        FROM usage WHERE cards.id = usage.card_id`);
    }
    mark('usage-w');
    if (lastAccessByDoor.size > 0) {
      const rows = [...lastAccessByDoor].map(([doorId, at]) => sql`(${doorId}, ${at})`);
      await tx.run(sql`
        WITH seen(door_id, at) AS (VALUES ${sql.join(rows, sql`, `)})
        UPDATE doors SET last_access_at = max(coalesce(last_access_at, 0), seen.at)
        FROM seen WHERE doors.id = seen.door_id`);
    }
    mark('doors-w');
    return { decisions, deactivatedCardIds: [...expiredCardIds] };
  });
  mark('commit');
  const g = globalThis as any; g.__prof ??= {}; for (let i = 1; i < T.length; i++) g.__prof[T[i]![0]] = (g.__prof[T[i]![0]] ?? 0) + T[i]![1] - T[i-1]![1];
  return out;
}

export async function getAccessLog(id: string) {
  return getDb().query.accessLogs.findFirst({ where: eq(accessLogs.id, id) });
}

export async function countAccessLogs() {
  const [row] = await getDb().select({ count: sql<number>`count(*)` }).from(accessLogs);
  return Number(row?.count ?? 0);
}

/** The newest rows first (the admin's log screen builds its filters on this). */
export async function listRecentAccessLogs(limit = 50) {
  return getDb().select().from(accessLogs).orderBy(desc(accessLogs.timestamp)).limit(limit);
}

/** SPEC: after approving a card, its denied rows are cleaned up. */
export async function deleteDeniedAccessLogsOfCard(cardId: string) {
  const deleted = await getDb()
    .delete(accessLogs)
    .where(and(eq(accessLogs.cardId, cardId), eq(accessLogs.accessGranted, false)))
    .returning({ id: accessLogs.id });
  return deleted.length;
}
