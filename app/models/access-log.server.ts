// The access log and the database side of access decisions. Swipes and
// offline events arrive in batches; each batch is decided and recorded in one
// write transaction: one log row per swipe or event (its id is the row's
// primary key, so redelivery never adds a second row), the cards' usage
// stats, the doors' last access, pending cards for unknown cards and the
// deactivation of expired ones. The caller publishes decisions only after
// this resolves, i.e. once the rows are committed.
import { and, desc, eq, sql } from "drizzle-orm";
import { accessLogs, type AccessLog, type Card, type Door } from "~/db/schema";
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

type DoorFacts = {
  id: string;
  name: string;
  status: Door["status"];
  useCustomMessages: boolean;
  customStatus: string | null;
  customMessage: string | null;
};

type CardEntry = {
  card: { id: string; status: Card["status"]; expiresAt: Date | null; isAnonymous: boolean; userId: string | null };
  holder: (HolderFacts & { username: string }) | null;
  /** Door row ids this card has a granted permission for. */
  grantedDoorIds: Set<string>;
};

type Usage = { cardId: string; attempts: number; successes: number; lastUsed: number };

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

/** Lists travel as one JSON parameter (read back with json_each), so each statement's text is the same for any batch. */
const json = (value: unknown) => JSON.stringify(value);

/**
 * Decides the swipes and records swipes and offline events, in one write
 * transaction. The statements are plain SQL with JSON parameters: a batch
 * costs about six statements whatever its size (docs/decisions/0003-door-access-over-mqtt.md).
 */
export async function recordAccessBatch(items: AccessInput[], now = new Date()): Promise<AccessBatchResult> {
  if (items.length === 0) return { decisions: [], deactivatedCardIds: [] };
  return getDb().transaction(async (tx) => {
    // 1. Read every fact the batch needs in one statement: three JSON arrays.
    const [facts] = await tx.all<{ doors: string; cards: string; logs: string }>(sql`
      SELECT
        (SELECT json_group_array(json_object(
            'id', id, 'code', door_id, 'name', name, 'status', status,
            'useCustomMessages', use_custom_messages, 'customStatus', custom_status, 'customMessage', custom_message))
          FROM doors
          WHERE door_id IN (SELECT value FROM json_each(${json(unique(items.map((item) => item.doorCode)))}))
        ) AS doors,
        (SELECT json_group_array(json_object(
            'id', c.id, 'cardNumber', c.card_number, 'status', c.status, 'expiresAt', c.expires_at,
            'isAnonymous', c.is_anonymous, 'userId', c.user_id,
            'holderStatus', u.status, 'holderFirstName', u.first_name, 'holderUsername', u.username,
            'grantedDoorIds', json((SELECT json_group_array(p.door_id) FROM card_permissions p
                                    WHERE p.card_id = c.id AND p.granted = 1))))
          FROM cards c LEFT JOIN users u ON u.id = c.user_id
          WHERE c.card_number IN (SELECT value FROM json_each(${json(
            unique(items.flatMap((item) => (item.cardNumber ? [item.cardNumber] : []))),
          )}))
        ) AS cards,
        (SELECT json_group_array(json_object('id', id, 'offline', offline, 'granted', access_granted, 'reason', reason))
          FROM access_logs
          WHERE id IN (SELECT value FROM json_each(${json(unique(items.map((item) => item.id)))}))
        ) AS logs`);

    const doorsByCode = new Map<string, DoorFacts>();
    for (const door of JSON.parse(facts!.doors) as (Omit<DoorFacts, "useCustomMessages"> & {
      code: string;
      useCustomMessages: number;
    })[]) {
      doorsByCode.set(door.code, { ...door, useCustomMessages: Boolean(door.useCustomMessages) });
    }

    const cardsByNumber = new Map<string, CardEntry>();
    for (const row of JSON.parse(facts!.cards) as {
      id: string;
      cardNumber: string;
      status: Card["status"];
      expiresAt: number | null;
      isAnonymous: number;
      userId: string | null;
      holderStatus: HolderFacts["status"] | null;
      holderFirstName: string | null;
      holderUsername: string | null;
      grantedDoorIds: string[];
    }[]) {
      cardsByNumber.set(row.cardNumber, {
        card: {
          id: row.id,
          status: row.status,
          expiresAt: row.expiresAt === null ? null : new Date(row.expiresAt),
          isAnonymous: Boolean(row.isAnonymous),
          userId: row.userId,
        },
        holder:
          row.holderStatus && row.holderUsername
            ? { status: row.holderStatus, firstName: row.holderFirstName, username: row.holderUsername }
            : null,
        grantedDoorIds: new Set(row.grantedDoorIds),
      });
    }

    const recorded = new Map<string, { offline: boolean; granted: boolean; reason: AccessReason }>();
    for (const row of JSON.parse(facts!.logs) as { id: string; offline: number; granted: number; reason: AccessReason }[]) {
      recorded.set(row.id, { offline: Boolean(row.offline), granted: Boolean(row.granted), reason: row.reason });
    }

    // 2. Decide, in arrival order, on the facts as earlier items of the batch left them.
    const decisions: SwipeDecision[] = [];
    const newCards: { id: string; cardNumber: string; isAnonymous: boolean }[] = [];
    const expiredCardIds = new Set<string>();
    const newLogs: LogRow[] = [];
    const overriddenLogs: { id: string; granted: boolean; reason: AccessReason }[] = [];
    const usageByCard = new Map<string, Usage>();
    const lastAccessByDoor = new Map<string, number>();

    const countUsage = (cardId: string, attempts: number, successes: number, at: number) => {
      const usage = usageByCard.get(cardId) ?? { cardId, attempts: 0, successes: 0, lastUsed: 0 };
      usage.attempts += attempts;
      usage.successes += successes;
      usage.lastUsed = Math.max(usage.lastUsed, at);
      usageByCard.set(cardId, usage);
    };
    const registerPendingCard = (cardNumber: string, isAnonymous: boolean): CardEntry => {
      const card = { id: createId(), status: "pending" as const, expiresAt: null, isAnonymous, userId: null };
      newCards.push({ id: card.id, cardNumber, isAnonymous });
      const entry = { card, holder: null, grantedDoorIds: new Set<string>() };
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
          permissionGranted: Boolean(door && entry?.grantedDoorIds.has(door.id)),
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
          timestamp: now.getTime(),
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
          timestamp: at,
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

    // 3. Write: one statement per kind of change, for the whole batch.
    if (newCards.length > 0) {
      await tx.run(sql`
        INSERT INTO cards (id, card_number, status, is_anonymous)
        SELECT value->>'id', value->>'cardNumber', 'pending', value->>'isAnonymous'
        FROM json_each(${json(newCards)})`);
    }
    if (expiredCardIds.size > 0) {
      await tx.run(sql`
        UPDATE cards SET status = 'inactive', updated_at = ${now.getTime()}
        WHERE status = 'active' AND id IN (SELECT value FROM json_each(${json([...expiredCardIds])}))`);
    }
    if (newLogs.length > 0) {
      // "WHERE true": SQLite needs it to read ON CONFLICT after INSERT … SELECT.
      await tx.run(sql`
        INSERT INTO access_logs (id, timestamp, card_id, card_number, door_id, door_code, door_name, user_id,
                                 username, access_granted, reason, is_anonymous, offline, source, ip_address)
        SELECT value->>'id', value->>'timestamp', value->>'cardId', value->>'cardNumber', value->>'doorId',
               value->>'doorCode', value->>'doorName', value->>'userId', value->>'username',
               value->>'accessGranted', value->>'reason', value->>'isAnonymous', value->>'offline',
               value->>'source', value->>'ipAddress'
        FROM json_each(${json(newLogs)}) WHERE true
        ON CONFLICT (id) DO NOTHING`);
    }
    for (const log of overriddenLogs) {
      await tx
        .update(accessLogs)
        .set({ offline: true, accessGranted: log.granted, reason: log.reason })
        .where(eq(accessLogs.id, log.id));
    }
    if (usageByCard.size > 0) {
      await tx.run(sql`
        UPDATE cards SET
          total_access_attempts = total_access_attempts + (usage.value->>'attempts'),
          successful_accesses = successful_accesses + (usage.value->>'successes'),
          last_used_at = max(coalesce(last_used_at, 0), usage.value->>'lastUsed')
        FROM json_each(${json([...usageByCard.values()])}) AS usage
        WHERE cards.id = usage.value->>'cardId'`);
    }
    if (lastAccessByDoor.size > 0) {
      const seen = [...lastAccessByDoor].map(([doorId, at]) => ({ doorId, at }));
      await tx.run(sql`
        UPDATE doors SET last_access_at = max(coalesce(last_access_at, 0), seen.value->>'at')
        FROM json_each(${json(seen)}) AS seen
        WHERE doors.id = seen.value->>'doorId'`);
    }
    return { decisions, deactivatedCardIds: [...expiredCardIds] };
  });
}

/** An access_logs row as the batch insert reads it from JSON (timestamps in epoch ms). */
type LogRow = {
  id: string;
  timestamp: number;
  cardId: string | null;
  cardNumber: string;
  doorId: string | null;
  doorCode: string;
  doorName: string | null;
  userId: string | null;
  username: string | null;
  accessGranted: boolean;
  reason: AccessReason;
  isAnonymous: boolean;
  offline: boolean;
  source: string | null;
  ipAddress: string | null;
};

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
