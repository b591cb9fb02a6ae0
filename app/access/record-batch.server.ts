// Decides and records the doors' swipes and events. Both steps run the same
// plan (planAccessBatch): the items in arrival order, each on the facts as
// earlier items left them, through the pure rules of rules.ts.
//
// - decideAccessBatch answers new swipes on what is committed, with the
//   swipes and events received but not yet committed planned first (their
//   pending cards, expired cards and ids count): the access service
//   publishes these decisions at once, so a person at the door never waits
//   for a commit (docs/decisions/0004).
// - recordAccessBatch records a batch in one write transaction: one log row
//   per swipe or event (keyed by door and id, so a door's redelivery never
//   adds a second row, and another door's id is another row), the cards'
//   usage stats, the doors' last access, pending cards for unknown cards and
//   the deactivation of expired ones. A swipe already answered is logged as
//   it was answered (its `answers` entry); one without an answer is decided
//   here, and its decision is returned to be published after the commit.
// The reads and writes are the access-log model's.
import {
  doorEventKey,
  inAccessTransaction,
  readAccessFacts,
  readCommittedAccessFacts,
  writeAccessBatch,
  type AccessBatchWrites,
  type AccessTransaction,
  type CardFacts,
  type NewAccessLogRow,
} from "~/models/access-log.server";
import { readAccessGroupIndex, type AccessGroupIndex } from "~/models/access-group.server";
import { insertBuildingReadings, type NewBuildingReading } from "~/models/building-reading.server";
import { readBookingWindows, readCommittedBookingWindows } from "~/models/facility-booking.server";
import crypto from "node:crypto";
import { readCommittedKeyFacts, readKeyFacts, type KeyFacts } from "~/models/door-key.server";
import { createId, sha256 } from "~/utils/crypto.server";
import type { AccessReason } from "~/doors/reasons";
import { BOOKING_WINDOW_LEAD_MS, decideAccess, decideKeyAccess, decisionDisplay, OFFLINE_WINDOW_HORIZON_MS, RECENT_WINDOW_MS } from "~/doors/rules";
import { buildingLocalTime, type WeeklySchedule } from "~/doors/schedule";

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
  /** A door key's PIN or QR token, when that is what was presented (then cardNumber is null). */
  key?: PresentedKey;
  source: "reader" | "mobile" | "keypad" | "qr" | null;
  ipAddress: string | null;
};

/** A PIN typed at a keypad or a token a QR scanner read. */
export type PresentedKey = { kind: "pin" | "qr"; secret: string };

/**
 * What a door did: `offline` true, a decision from its offline list; false, a
 * swipe the app answered, sent again by the bridge because no receipt named
 * it (the app may have stopped before its commit).
 */
export type DoorEventInput = {
  kind: "event";
  id: string;
  doorCode: string;
  /** The card's canonical id; "" for a key's event. */
  cardNumber: string;
  /** The door key's PIN or QR token, for a key's event. */
  key?: PresentedKey;
  at: Date;
  granted: boolean;
  reason: AccessReason;
  offline: boolean;
  ipAddress: string | null;
};

export type AccessInput = SwipeInput | DoorEventInput;

/** A swipe's decision as it was published (at: epoch ms); keyed by doorEventKey(door, swipe id). */
export type SwipeAnswer = { granted: boolean; reason: AccessReason; at: number };
export type SwipeAnswers = Map<string, SwipeAnswer>;

/** The answers of the items that have one; a redelivered swipe's answer repeats the first one's, which is kept. */
export function swipeAnswers(items: { input: AccessInput; answer?: SwipeAnswer }[]): SwipeAnswers {
  const answers: SwipeAnswers = new Map();
  for (const { input, answer } of items) {
    const key = doorEventKey(input.doorCode, input.id);
    if (answer && !answers.has(key)) answers.set(key, answer);
  }
  return answers;
}

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
  /** The decisions of the batch's swipes that came without an answer. */
  decisions: SwipeDecision[];
  /** Cards this batch set inactive because they had expired (their doors' offline lists change). */
  deactivatedCardIds: string[];
};

const unique = <T>(values: T[]) => [...new Set(values)];

/**
 * What lets the card through this door (row id): its own permission (an
 * explicit denial shuts every other way), and its holder's access groups
 * with their timetables (the index the access service keeps in memory).
 */
export function cardAccessOnDoor(
  card: Pick<CardFacts, "permissions" | "groupIds">,
  doorId: string,
  groups: AccessGroupIndex,
): { permissionGranted: boolean; schedules: WeeklySchedule[] } {
  const own = card.permissions.get(doorId);
  if (own && !own.granted) return { permissionGranted: false, schedules: [] };
  let permissionGranted = Boolean(own && (own.schedule ?? []).length === 0);
  const schedules: WeeklySchedule[] = own?.schedule?.length ? [own.schedule] : [];
  for (const groupId of card.groupIds) {
    const schedule = groups.get(groupId)?.get(doorId);
    if (!schedule) continue;
    if (schedule.length === 0) permissionGranted = true;
    else schedules.push(schedule);
  }
  return { permissionGranted, schedules };
}

type PlanFacts = Awaited<ReturnType<typeof readAccessFacts>> & {
  bookingWindows: Awaited<ReturnType<typeof readBookingWindows>>;
  keys: Awaited<ReturnType<typeof readKeyFacts>>;
};

/** How a plan reads: inside the batch's write transaction, or what is committed. */
type FactReaders = { accessFacts: typeof readCommittedAccessFacts; bookingWindows: typeof readCommittedBookingWindows; keyFacts: typeof readCommittedKeyFacts };
const COMMITTED: FactReaders = { accessFacts: readCommittedAccessFacts, bookingWindows: readCommittedBookingWindows, keyFacts: readCommittedKeyFacts };
const inTransaction = (tx: AccessTransaction): FactReaders => ({
  accessFacts: (query) => readAccessFacts(tx, query),
  bookingWindows: (query) => readBookingWindows(tx, query),
  keyFacts: (query) => readKeyFacts(tx, query),
});

/** A PIN as keys have them: six digits (anything else matches no key). */
const PIN_PATTERN = /^\d{6}$/;
/** Keys that ended longer ago than this are not read: their PIN or token is just invalid. */
const ENDED_KEYS_MS = 7 * 24 * 3600_000;

/** The lookup key of a presented PIN or token in PlanFacts.keys ("" for a PIN no key can have). */
function keyLookup(key: PresentedKey) {
  if (key.kind === "pin") return PIN_PATTERN.test(key.secret) ? `pin:${key.secret}` : "";
  return `qr:${sha256(key.secret)}`;
}

/**
 * The active keys matching what was presented. A token is found by its
 * hash's index entry, then compared with the stored hash in constant time.
 */
function keysPresented(key: PresentedKey, keys: PlanFacts["keys"]): KeyFacts[] {
  const lookup = keyLookup(key);
  const found = lookup ? (keys.get(lookup) ?? []) : [];
  if (key.kind === "pin") return found;
  const sent = Buffer.from(lookup.slice(3), "hex");
  return found.filter((candidate) => crypto.timingSafeEqual(sent, Buffer.from(candidate.qrHash, "hex")));
}

/** Whether the key opens this door: its own doors, or every entrance when it has them. */
function keyOpensDoor(key: KeyFacts, door: { id: string; isEntrance: boolean } | null) {
  return Boolean(door && (key.doorIds.includes(door.id) || (key.entrances && door.isEntrance)));
}

/** A key's row in the access log: no card; the key that matched (if any) gives its reference and holder. */
function keyLogRow(
  item: { id: string; doorCode: string; ipAddress: NewAccessLogRow["ipAddress"] },
  key: PresentedKey,
  door: { id: string; name: string } | null,
  matched: KeyFacts | null,
  row: Pick<NewAccessLogRow, "id" | "timestamp" | "accessGranted" | "reason" | "offline" | "source">,
): NewAccessLogRow {
  return {
    ...row,
    eventId: item.id,
    cardId: null,
    cardNumber: matched?.reference ?? "",
    doorId: door?.id ?? null,
    doorCode: item.doorCode,
    doorName: door?.name ?? null,
    userId: matched?.userId ?? null,
    username: matched?.username ?? null,
    isAnonymous: false,
    ipAddress: item.ipAddress,
    credentialKind: key.kind,
    keyId: matched?.id ?? null,
    holder: matched?.holderLabel ?? null,
  };
}

/** Everything a plan of these items reads. */
async function readPlanFacts(read: FactReaders, items: AccessInput[], now: Date): Promise<PlanFacts> {
  const facts = await read.accessFacts({
    doorCodes: unique(items.map((item) => item.doorCode)),
    cardNumbers: unique(items.flatMap((item) => (item.cardNumber && !item.key ? [item.cardNumber] : []))),
    events: items.map((item) => ({ doorCode: item.doorCode, eventId: item.id })),
  });
  // Facility bookings that open these doors to these cards' holders.
  const bookingWindows = await read.bookingWindows({
    cardNumbers: [...facts.cards.keys()],
    doorCodes: [...facts.doors.keys()],
    from: now.getTime() - RECENT_WINDOW_MS,
    to: now.getTime() + OFFLINE_WINDOW_HORIZON_MS,
    leadMs: BOOKING_WINDOW_LEAD_MS,
  });
  const lookups = items.flatMap((item) => (item.key ? [keyLookup(item.key)] : [])).filter(Boolean);
  const keys = await read.keyFacts({
    pins: unique(lookups.filter((lookup) => lookup.startsWith("pin:")).map((lookup) => lookup.slice(4))),
    qrHashes: unique(lookups.filter((lookup) => lookup.startsWith("qr:")).map((lookup) => lookup.slice(3))),
    since: now.getTime() - ENDED_KEYS_MS,
  });
  return { ...facts, bookingWindows, keys };
}

/**
 * Decides new swipes on the committed facts, with `pending` (received, not
 * yet committed) planned first. Returns the decisions of `fresh`'s swipes, in
 * order. Reads only.
 */
export async function decideAccessBatch(
  pending: AccessInput[],
  pendingAnswers: SwipeAnswers,
  fresh: AccessInput[],
  now: Date,
  groups: AccessGroupIndex,
): Promise<SwipeDecision[]> {
  const items = [...pending, ...fresh];
  const facts = await readPlanFacts(COMMITTED, items, now);
  const { decisions } = planAccessBatch(facts, items, pendingAnswers, now, groups);
  const freshSwipes = fresh.filter((item) => item.kind === "swipe").length;
  return decisions.slice(decisions.length - freshSwipes);
}

/**
 * Records a batch in one write transaction; swipes without an answer are
 * decided here. `readings`: building sensors' readings stored in the same
 * transaction (they ride along, so they cost no commit of their own).
 * `groups`: the access groups' index; read in the transaction when absent
 * (the recorder thread) and a swipe has no answer yet.
 */
export async function recordAccessBatch(
  items: AccessInput[],
  now = new Date(),
  answers: SwipeAnswers = new Map(),
  readings: NewBuildingReading[] = [],
  groups?: AccessGroupIndex,
): Promise<AccessBatchResult> {
  if (items.length === 0 && readings.length === 0) return { decisions: [], deactivatedCardIds: [] };
  return inAccessTransaction(async (tx) => {
    await insertBuildingReadings(readings, tx);
    if (items.length === 0) return { decisions: [], deactivatedCardIds: [] };
    const facts = await readPlanFacts(inTransaction(tx), items, now);
    const unansweredSwipe = items.some((item) => item.kind === "swipe" && !answers.has(doorEventKey(item.doorCode, item.id)));
    const index = groups ?? (unansweredSwipe ? await readAccessGroupIndex(tx) : new Map());
    const { decisions, writes } = planAccessBatch(facts, items, answers, now, index);
    await writeAccessBatch(tx, writes, now);
    const unanswered = decisions.filter((decision) => !answers.has(doorEventKey(decision.doorCode, decision.id)));
    return { decisions: unanswered, deactivatedCardIds: writes.expiredCardIds };
  });
}

/**
 * The batch's decisions (one per swipe, in order) and the writes that record
 * it. A swipe with an entry in `answers` is logged as answered; its effects
 * (a pending card, an expired card set inactive) follow the facts.
 */
function planAccessBatch(facts: PlanFacts, items: AccessInput[], answers: SwipeAnswers, now: Date, groups: AccessGroupIndex) {
  const { doors, cards, recorded, takenRowIds, bookingWindows, keys } = facts;
  const localTime = buildingLocalTime(now);
  // A new row is keyed by the door's id unless another door's row has it.
  const newRowId = (eventId: string) => {
    const rowId = takenRowIds.has(eventId) ? createId() : eventId;
    takenRowIds.add(rowId);
    return rowId;
  };

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
  const countDoorAccess = (doorId: string, at: number) => lastAccessByDoor.set(doorId, Math.max(lastAccessByDoor.get(doorId) ?? 0, at));
  const registerPendingCard = (cardNumber: string, isAnonymous: boolean): CardFacts => {
    const card: CardFacts = {
      id: createId(),
      cardNumber,
      status: "pending",
      cardType: "primary",
      expiresAt: null,
      isAnonymous,
      userId: null,
      holder: null,
      permissions: new Map(),
      groupIds: [],
    };
    newCards.push({ id: card.id, cardNumber, isAnonymous });
    cards.set(cardNumber, card);
    return card;
  };

  for (const item of items) {
    const door = doors.get(item.doorCode) ?? null;
    const key = doorEventKey(item.doorCode, item.id);
    const previous = recorded.get(key);

    if (item.kind === "swipe" && item.key) {
      // A door key's PIN or QR token: decided on the same path as a card (docs/access-keys.md).
      const presented = keysPresented(item.key, keys);
      const { outcome, keyIndex } = decideKeyAccess({
        door,
        keys: presented.map((key) => ({ windows: key.windows, opensDoor: keyOpensDoor(key, door) })),
        now,
      });
      const matched = keyIndex === null ? null : presented[keyIndex]!;
      const holder = matched ? { status: "active" as const, firstName: matched.holderFirstName || null } : null;
      if (previous) {
        decisions.push({
          id: item.id,
          doorCode: item.doorCode,
          granted: previous.granted,
          reason: previous.reason,
          display: decisionDisplay(previous, door, holder),
          duplicate: true,
        });
        continue;
      }
      const answer = answers.get(key);
      const { granted, reason } = answer ?? outcome;
      const at = answer?.at ?? now.getTime();
      const rowId = newRowId(item.id);
      newLogs.push(keyLogRow(item, item.key, door, matched, { id: rowId, timestamp: at, accessGranted: granted, reason, offline: false, source: item.source }));
      recorded.set(key, { rowId, offline: false, granted, reason });
      if (door) countDoorAccess(door.id, at);
      decisions.push({
        id: item.id,
        doorCode: item.doorCode,
        granted,
        reason,
        display: decisionDisplay({ granted, reason }, door, holder),
        duplicate: false,
      });
      continue;
    }

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
        ...(door && known ? cardAccessOnDoor(known, door.id, groups) : { permissionGranted: false }),
        localTime,
        bookingWindows: door && known ? bookingWindows.get(`${known.id}|${door.id}`) : undefined,
        now,
      });
      const answer = answers.get(key);
      const { granted, reason } = answer ?? outcome;
      const at = answer?.at ?? now.getTime();
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
        timestamp: at,
        cardId: card?.id ?? null,
        cardNumber: item.cardNumber ?? item.rawCard.slice(0, RAW_CARD_LENGTH),
        doorId: door?.id ?? null,
        doorCode: item.doorCode,
        doorName: door?.name ?? null,
        userId: card?.userId ?? null,
        username: card?.holder?.username ?? null,
        accessGranted: granted,
        reason,
        isAnonymous: card ? card.isAnonymous : item.source === "mobile",
        offline: false,
        source: item.source,
        ipAddress: item.ipAddress,
        credentialKind: "card",
        keyId: null,
        holder: null,
      });
      recorded.set(key, { rowId, offline: false, granted, reason });
      if (card) countUsage(card.id, 1, granted ? 1 : 0, at);
      if (door) countDoorAccess(door.id, at);
      decisions.push({
        id: item.id,
        doorCode: item.doorCode,
        granted,
        reason,
        display: decisionDisplay({ granted, reason }, door, card?.holder ?? null),
        duplicate: false,
      });
      continue;
    }

    // A door's event. An answered swipe sent again is logged only if its row
    // is missing; a redelivered offline event is logged once.
    if (previous && (!item.offline || previous.offline)) continue;
    if (item.key) {
      // A key's event: the key (if any still matches) names the holder; no card is registered.
      const presented = keysPresented(item.key, keys);
      const matched = presented.find((candidate) => keyOpensDoor(candidate, door)) ?? presented[0] ?? null;
      const at = Math.min(item.at.getTime(), now.getTime());
      const rowId = previous?.rowId ?? newRowId(item.id);
      if (previous) overriddenLogs.push({ rowId: previous.rowId, granted: item.granted, reason: item.reason });
      else {
        newLogs.push(keyLogRow(item, item.key, door, matched, { id: rowId, timestamp: at, accessGranted: item.granted, reason: item.reason, offline: item.offline, source: null }));
        if (door) countDoorAccess(door.id, at);
      }
      recorded.set(key, { rowId, offline: item.offline, granted: item.granted, reason: item.reason });
      continue;
    }
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
        offline: item.offline,
        source: null,
        ipAddress: item.ipAddress,
        credentialKind: "card",
        keyId: null,
        holder: null,
      });
      countUsage(card.id, 1, item.granted ? 1 : 0, at);
      if (door) countDoorAccess(door.id, at);
    }
    recorded.set(key, { rowId, offline: item.offline, granted: item.granted, reason: item.reason });
  }

  const writes: AccessBatchWrites = {
    newCards,
    expiredCardIds: [...expiredCardIds],
    newLogs,
    overriddenLogs,
    usage: [...usageByCard.values()],
    lastAccess: [...lastAccessByDoor].map(([doorId, at]) => ({ doorId, at })),
  };
  return { decisions, writes };
}
