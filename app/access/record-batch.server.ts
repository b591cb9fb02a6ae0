// Decides a batch of swipes and records it with the batch's offline events,
// in one write transaction (the access service calls this; it publishes the
// decisions only after this resolves, i.e. once the rows are committed):
// one log row per swipe or event (keyed by door and id, so a door's
// redelivery never adds a second row, and another door's id is another row),
// the cards' usage stats, the doors' last access,
// pending cards for unknown cards and the deactivation of expired ones. The
// rules are the pure functions of rules.ts; the reads and writes are the
// access-log model's.
import {
  doorEventKey,
  inAccessTransaction,
  readAccessFacts,
  writeAccessBatch,
  type AccessBatchWrites,
  type CardFacts,
  type NewAccessLogRow,
} from "~/models/access-log.server";
import { readBookingWindows } from "~/models/facility-booking.server";
import { createId } from "~/utils/crypto.server";
import type { AccessReason } from "./reasons";
import { BOOKING_WINDOW_LEAD_MS, decideAccess, decisionDisplay, OFFLINE_WINDOW_HORIZON_MS, RECENT_WINDOW_MS } from "./rules";

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

const unique = <T>(values: T[]) => [...new Set(values)];

export async function recordAccessBatch(items: AccessInput[], now = new Date()): Promise<AccessBatchResult> {
  if (items.length === 0) return { decisions: [], deactivatedCardIds: [] };
  return inAccessTransaction(async (tx) => {
    const { doors, cards, recorded, takenRowIds } = await readAccessFacts(tx, {
      doorCodes: unique(items.map((item) => item.doorCode)),
      cardNumbers: unique(items.flatMap((item) => (item.cardNumber ? [item.cardNumber] : []))),
      events: items.map((item) => ({ doorCode: item.doorCode, eventId: item.id })),
    });
    // A new row is keyed by the door's id unless another door's row has it.
    const newRowId = (eventId: string) => {
      const rowId = takenRowIds.has(eventId) ? createId() : eventId;
      takenRowIds.add(rowId);
      return rowId;
    };

    // Facility bookings that open these doors to these cards' holders.
    const bookingWindows = await readBookingWindows(tx, {
      cardNumbers: [...cards.keys()],
      doorCodes: [...doors.keys()],
      from: now.getTime() - RECENT_WINDOW_MS,
      to: now.getTime() + OFFLINE_WINDOW_HORIZON_MS,
      leadMs: BOOKING_WINDOW_LEAD_MS,
    });

    // Decide in arrival order, on the facts as earlier items of the batch left them.
    const decisions: SwipeDecision[] = [];
    const newCards: AccessBatchWrites["newCards"] = [];
    const expiredCardIds = new Set<string>();
    const newLogs: NewAccessLogRow[] = [];
    const overriddenLogs: AccessBatchWrites["overriddenLogs"] = [];
    const usageByCard = new Map<string, AccessBatchWrites["usage"][number]>();
    const lastAccessByDoor = new Map<string, number>();

    const countUsage = (cardId: string, attempts: number, successes: number, at: number) => {
      const usage = usageByCard.get(cardId) ?? { cardId, attempts: 0, successes: 0, lastUsed: 0 };
      usage.attempts += attempts;
      usage.successes += successes;
      usage.lastUsed = Math.max(usage.lastUsed, at);
      usageByCard.set(cardId, usage);
    };
    const registerPendingCard = (cardNumber: string, isAnonymous: boolean): CardFacts => {
      const card: CardFacts = {
        id: createId(),
        cardNumber,
        status: "pending",
        expiresAt: null,
        isAnonymous,
        userId: null,
        holder: null,
        grantedDoorIds: new Set(),
      };
      newCards.push({ id: card.id, cardNumber, isAnonymous });
      cards.set(cardNumber, card);
      return card;
    };

    for (const item of items) {
      const door = doors.get(item.doorCode) ?? null;
      const key = doorEventKey(item.doorCode, item.id);
      const previous = recorded.get(key);

      if (item.kind === "swipe") {
        const known = item.cardNumber ? cards.get(item.cardNumber) : undefined;
        if (previous) {
          // Redelivered swipe: answer again what was recorded.
          decisions.push({
            id: item.id,
            doorCode: item.doorCode,
            granted: previous.granted,
            reason: previous.reason,
            display: decisionDisplay(previous, door, known?.holder ?? null),
            duplicate: true,
          });
          continue;
        }
        const outcome = decideAccess({
          validRequest: item.cardNumber !== null,
          door,
          card: known ?? null,
          holder: known?.holder ?? null,
          permissionGranted: Boolean(door && known?.grantedDoorIds.has(door.id)),
          bookingWindows: door && known ? bookingWindows.get(`${known.id}|${door.id}`) : undefined,
          now,
        });
        let card = known;
        if (outcome.createPendingCard && item.cardNumber) card = registerPendingCard(item.cardNumber, item.source === "mobile");
        if (outcome.deactivateCard && card) {
          card.status = "inactive";
          expiredCardIds.add(card.id);
        }
        const rowId = newRowId(item.id);
        newLogs.push({
          id: rowId,
          eventId: item.id,
          timestamp: now.getTime(),
          cardId: card?.id ?? null,
          cardNumber: item.cardNumber ?? item.rawCard.slice(0, RAW_CARD_LENGTH),
          doorId: door?.id ?? null,
          doorCode: item.doorCode,
          doorName: door?.name ?? null,
          userId: card?.userId ?? null,
          username: card?.holder?.username ?? null,
          accessGranted: outcome.granted,
          reason: outcome.reason,
          isAnonymous: card ? card.isAnonymous : item.source === "mobile",
          offline: false,
          source: item.source,
          ipAddress: item.ipAddress,
        });
        recorded.set(key, { rowId, offline: false, granted: outcome.granted, reason: outcome.reason });
        if (card) countUsage(card.id, 1, outcome.granted ? 1 : 0, now.getTime());
        if (door) lastAccessByDoor.set(door.id, now.getTime());
        decisions.push({
          id: item.id,
          doorCode: item.doorCode,
          granted: outcome.granted,
          reason: outcome.reason,
          display: decisionDisplay(outcome, door, card?.holder ?? null),
          duplicate: false,
        });
        continue;
      }

      // Offline event: what the door did while it could not reach the app.
      if (previous?.offline) continue; // redelivered
      const card = cards.get(item.cardNumber) ?? registerPendingCard(item.cardNumber, false);
      // Events from a clock running ahead are logged at arrival time.
      const at = Math.min(item.at.getTime(), now.getTime());
      const rowId = previous?.rowId ?? newRowId(item.id);
      if (previous) {
        // The swipe reached the app but its decision did not reach the door in
        // time: the door acted on its offline decision, so the row says that.
        overriddenLogs.push({ rowId: previous.rowId, granted: item.granted, reason: item.reason });
        countUsage(card.id, 0, Number(item.granted) - Number(previous.granted), at);
      } else {
        newLogs.push({
          id: rowId,
          eventId: item.id,
          timestamp: at,
          cardId: card.id,
          cardNumber: item.cardNumber,
          doorId: door?.id ?? null,
          doorCode: item.doorCode,
          doorName: door?.name ?? null,
          userId: card.userId,
          username: card.holder?.username ?? null,
          accessGranted: item.granted,
          reason: item.reason,
          isAnonymous: card.isAnonymous,
          offline: true,
          source: null,
          ipAddress: item.ipAddress,
        });
        countUsage(card.id, 1, item.granted ? 1 : 0, at);
        if (door) lastAccessByDoor.set(door.id, Math.max(lastAccessByDoor.get(door.id) ?? 0, at));
      }
      recorded.set(key, { rowId, offline: true, granted: item.granted, reason: item.reason });
    }

    await writeAccessBatch(
      tx,
      {
        newCards,
        expiredCardIds: [...expiredCardIds],
        newLogs,
        overriddenLogs,
        usage: [...usageByCard.values()],
        lastAccess: [...lastAccessByDoor].map(([doorId, at]) => ({ doorId, at })),
      },
      now,
    );
    return { decisions, deactivatedCardIds: [...expiredCardIds] };
  });
}
