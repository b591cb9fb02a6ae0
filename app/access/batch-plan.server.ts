// The plan of a batch of swipes and door events (record-batch.server.ts runs
// it to decide and to record): the items in arrival order, each on the facts
// as earlier items left them, through the pure rules of rules.ts. One planner
// per kind of item (a card's swipe, a key's swipe, a card's event, a key's
// event), all adding to one BatchPlan: the decisions, and the writes that
// record the batch.
import crypto from "node:crypto";
import {
  doorEventKey,
  type AccessBatchWrites,
  type CardFacts,
  type DoorFacts,
  type NewAccessLogRow,
  type readAccessFacts,
  type RecordedAccess,
} from "~/models/access-log.server";
import type { AccessGroupIndex } from "~/models/access-group.server";
import type { readBookingWindows } from "~/models/facility-booking.server";
import type { KeyFacts, readKeyFacts } from "~/models/door-key.server";
import { createId, sha256 } from "~/utils/crypto.server";
import type { AccessReason } from "~/doors/reasons";
import { decideAccess, decideKeyAccess, decisionDisplay, type AccessOutcome, type HolderFacts } from "~/doors/rules";
import { buildingLocalTime, type WeeklySchedule } from "~/doors/schedule";

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

export type SwipeDecision = {
  id: string;
  doorCode: string;
  granted: boolean;
  reason: AccessReason;
  display: { line1: string; line2: string };
  /** The swipe had been recorded already: this repeats its decision. */
  duplicate: boolean;
};

/** Everything a plan reads (record-batch.server.ts reads it, in the batch's transaction or committed). */
export type PlanFacts = Awaited<ReturnType<typeof readAccessFacts>> & {
  bookingWindows: Awaited<ReturnType<typeof readBookingWindows>>;
  keys: Awaited<ReturnType<typeof readKeyFacts>>;
};

/** Longest text kept from a card id that could not be read. */
const RAW_CARD_LENGTH = 64;
/** A PIN as keys have them: six digits (anything else matches no key). */
const PIN_PATTERN = /^\d{6}$/;

/** The lookup key of a presented PIN or token in PlanFacts.keys ("" for a PIN no key can have). */
export function keyLookup(key: PresentedKey) {
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

/**
 * Issue 40: a visitor pass opens a door only while its resident could open
 * it themselves at that moment (active, with an active card not expired whose
 * permission or access groups open the door now; facility bookings do not
 * count). A stay's key has no issuer to ask.
 */
function issuerCanOpen(key: KeyFacts, door: DoorFacts, plan: BatchPlan) {
  if (key.kind !== "visitor") return true;
  const issuer = key.issuer;
  if (!issuer || issuer.status === null) return false;
  const holder = { status: issuer.status, firstName: null };
  return issuer.cards.some(
    (card) =>
      decideAccess({
        validRequest: true,
        door,
        card,
        holder,
        ...cardAccessOnDoor({ permissions: card.permissions, groupIds: issuer.groupIds }, door.id, plan.groups),
        localTime: plan.localTime,
        bookingWindows: [],
        now: plan.now,
      }).granted,
  );
}

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

type RowFields = Pick<NewAccessLogRow, "id" | "timestamp" | "accessGranted" | "reason" | "offline" | "source">;
type ItemFields = { id: string; doorCode: string; ipAddress: NewAccessLogRow["ipAddress"] };

/** A card's row in the access log (`card` null: an unknown card that was not registered, or an unreadable one). */
function cardLogRow(item: ItemFields, cardNumber: string, door: DoorFacts | null, card: CardFacts | null, isAnonymous: boolean, row: RowFields): NewAccessLogRow {
  return {
    ...row,
    eventId: item.id,
    cardId: card?.id ?? null,
    cardNumber,
    doorId: door?.id ?? null,
    doorCode: item.doorCode,
    doorName: door?.name ?? null,
    userId: card?.userId ?? null,
    username: card?.holder?.username ?? null,
    isAnonymous,
    ipAddress: item.ipAddress,
    credentialKind: "card",
    keyId: null,
    holder: null,
  };
}

/** A key's row in the access log: no card; the key that matched (if any) gives its reference and holder. */
function keyLogRow(item: ItemFields, key: PresentedKey, door: DoorFacts | null, matched: KeyFacts | null, row: RowFields): NewAccessLogRow {
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

/**
 * The one accumulator of a plan: the facts (updated as items are planned:
 * what each door has recorded, cards registered or deactivated), the
 * decisions in order, and the writes.
 */
class BatchPlan {
  readonly decisions: SwipeDecision[] = [];
  readonly localTime: ReturnType<typeof buildingLocalTime>;
  private readonly newCards: AccessBatchWrites["newCards"] = [];
  private readonly expiredCardIds = new Set<string>();
  private readonly newLogs: NewAccessLogRow[] = [];
  private readonly overriddenLogs: AccessBatchWrites["overriddenLogs"] = [];
  private readonly usageByCard = new Map<string, AccessBatchWrites["usage"][number]>();
  private readonly lastAccessByDoor = new Map<string, number>();

  constructor(
    readonly facts: PlanFacts,
    /** Swipes already answered: logged as they were answered. */
    readonly answers: SwipeAnswers,
    readonly now: Date,
    readonly groups: AccessGroupIndex,
  ) {
    this.localTime = buildingLocalTime(now);
  }

  /** The item's door and what that door already recorded under its id. */
  place(item: AccessInput) {
    const key = doorEventKey(item.doorCode, item.id);
    return { key, door: this.facts.doors.get(item.doorCode) ?? null, previous: this.facts.recorded.get(key) };
  }

  /** A swipe's published answer, else this outcome, at the time it was (or is) answered. */
  answerOf(key: string, outcome: Pick<AccessOutcome, "granted" | "reason">) {
    const answer = this.answers.get(key);
    const { granted, reason } = answer ?? outcome;
    return { granted, reason, at: answer?.at ?? this.now.getTime() };
  }

  /** A new row is keyed by the door's id unless another door's row has it. */
  newRowId(eventId: string) {
    const rowId = this.facts.takenRowIds.has(eventId) ? createId() : eventId;
    this.facts.takenRowIds.add(rowId);
    return rowId;
  }

  decide(item: SwipeInput, outcome: Pick<SwipeDecision, "granted" | "reason">, door: DoorFacts | null, holder: HolderFacts | null, duplicate: boolean) {
    const { granted, reason } = outcome;
    this.decisions.push({ id: item.id, doorCode: item.doorCode, granted, reason, display: decisionDisplay({ granted, reason }, door, holder), duplicate });
  }

  /** A new row, and what the door has recorded under its id from now on. */
  log(key: string, row: NewAccessLogRow) {
    this.newLogs.push(row);
    this.remember(key, { rowId: row.id, offline: row.offline, granted: row.accessGranted, reason: row.reason });
  }

  /** An online row whose door acted on its offline decision instead. */
  override(key: string, previous: RecordedAccess, event: DoorEventInput) {
    this.overriddenLogs.push({ rowId: previous.rowId, granted: event.granted, reason: event.reason });
    this.remember(key, { rowId: previous.rowId, offline: event.offline, granted: event.granted, reason: event.reason });
  }

  remember(key: string, recorded: RecordedAccess) {
    this.facts.recorded.set(key, recorded);
  }

  countUsage(cardId: string, attempts: number, successes: number, at: number) {
    const usage = this.usageByCard.get(cardId) ?? { cardId, attempts: 0, successes: 0, lastUsed: 0 };
    usage.attempts += attempts;
    usage.successes += successes;
    usage.lastUsed = Math.max(usage.lastUsed, at);
    this.usageByCard.set(cardId, usage);
  }

  countDoorAccess(door: DoorFacts | null, at: number) {
    if (door) this.lastAccessByDoor.set(door.id, Math.max(this.lastAccessByDoor.get(door.id) ?? 0, at));
  }

  registerPendingCard(cardNumber: string, isAnonymous: boolean): CardFacts {
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
    this.newCards.push({ id: card.id, cardNumber, isAnonymous });
    this.facts.cards.set(cardNumber, card);
    return card;
  }

  deactivate(card: CardFacts) {
    card.status = "inactive";
    this.expiredCardIds.add(card.id);
  }

  writes(): AccessBatchWrites {
    return {
      newCards: this.newCards,
      expiredCardIds: [...this.expiredCardIds],
      newLogs: this.newLogs,
      overriddenLogs: this.overriddenLogs,
      usage: [...this.usageByCard.values()],
      lastAccess: [...this.lastAccessByDoor].map(([doorId, at]) => ({ doorId, at })),
    };
  }
}

/** A card's swipe: decided on the card, its holder, permissions, groups and bookings; an unknown card is registered pending. */
function planCardSwipe(plan: BatchPlan, item: SwipeInput) {
  const { key, door, previous } = plan.place(item);
  const known = item.cardNumber ? plan.facts.cards.get(item.cardNumber) : undefined;
  // Redelivered swipe: answer again what was recorded.
  if (previous) return plan.decide(item, previous, door, known?.holder ?? null, true);
  const outcome = decideAccess({
    validRequest: item.cardNumber !== null,
    door,
    card: known ?? null,
    holder: known?.holder ?? null,
    ...(door && known ? cardAccessOnDoor(known, door.id, plan.groups) : { permissionGranted: false }),
    localTime: plan.localTime,
    bookingWindows: door && known ? plan.facts.bookingWindows.get(`${known.id}|${door.id}`) : undefined,
    now: plan.now,
  });
  const { granted, reason, at } = plan.answerOf(key, outcome);
  let card = known;
  if (outcome.createPendingCard && item.cardNumber) card = plan.registerPendingCard(item.cardNumber, item.source === "mobile");
  if (outcome.deactivateCard && card) plan.deactivate(card);
  const row = { id: plan.newRowId(item.id), timestamp: at, accessGranted: granted, reason, offline: false, source: item.source };
  const cardNumber = item.cardNumber ?? item.rawCard.slice(0, RAW_CARD_LENGTH);
  plan.log(key, cardLogRow(item, cardNumber, door, card ?? null, card ? card.isAnonymous : item.source === "mobile", row));
  if (card) plan.countUsage(card.id, 1, granted ? 1 : 0, at);
  plan.countDoorAccess(door, at);
  plan.decide(item, { granted, reason }, door, card?.holder ?? null, false);
}

/** A door key's PIN or QR token: decided on the same path as a card (docs/access-keys.md). */
function planKeySwipe(plan: BatchPlan, item: SwipeInput, presentedKey: PresentedKey) {
  const { key, door, previous } = plan.place(item);
  const presented = keysPresented(presentedKey, plan.facts.keys);
  const { outcome, keyIndex } = decideKeyAccess({
    door,
    keys: presented.map((candidate) => ({ windows: candidate.windows, opensDoor: keyOpensDoor(candidate, door) && issuerCanOpen(candidate, door!, plan) })),
    now: plan.now,
    kind: presentedKey.kind,
  });
  const matched = keyIndex === null ? null : presented[keyIndex]!;
  const holder = matched ? { status: "active" as const, firstName: matched.holderFirstName || null } : null;
  if (previous) return plan.decide(item, previous, door, holder, true);
  const { granted, reason, at } = plan.answerOf(key, outcome);
  const row = { id: plan.newRowId(item.id), timestamp: at, accessGranted: granted, reason, offline: false, source: item.source };
  plan.log(key, keyLogRow(item, presentedKey, door, matched, row));
  plan.countDoorAccess(door, at);
  plan.decide(item, { granted, reason }, door, holder, false);
}

/**
 * Whether a door's event is news: an answered swipe sent again is logged only
 * if its row is missing; a redelivered offline event is logged once.
 */
function isNewEvent(item: DoorEventInput, previous: RecordedAccess | undefined) {
  return !previous || (item.offline && !previous.offline);
}

/** Events from a clock running ahead are logged at arrival time. */
const eventTime = (plan: BatchPlan, item: DoorEventInput) => Math.min(item.at.getTime(), plan.now.getTime());

/** A card's event: logged, or it overrides the online row of the swipe the door decided offline after all. */
function planCardEvent(plan: BatchPlan, item: DoorEventInput) {
  const { key, door, previous } = plan.place(item);
  if (!isNewEvent(item, previous)) return;
  const card = plan.facts.cards.get(item.cardNumber) ?? plan.registerPendingCard(item.cardNumber, false);
  const at = eventTime(plan, item);
  if (previous) {
    // The swipe reached the app but its decision did not reach the door in
    // time: the door acted on its offline decision, so the row says that.
    plan.override(key, previous, item);
    plan.countUsage(card.id, 0, Number(item.granted) - Number(previous.granted), at);
    return;
  }
  const row = { id: plan.newRowId(item.id), timestamp: at, accessGranted: item.granted, reason: item.reason, offline: item.offline, source: null };
  plan.log(key, cardLogRow(item, item.cardNumber, door, card, card.isAnonymous, row));
  plan.countUsage(card.id, 1, item.granted ? 1 : 0, at);
  plan.countDoorAccess(door, at);
}

/** A key's event: the key (if any still matches) names the holder; no card is registered. */
function planKeyEvent(plan: BatchPlan, item: DoorEventInput, presentedKey: PresentedKey) {
  const { key, door, previous } = plan.place(item);
  if (!isNewEvent(item, previous)) return;
  if (previous) return plan.override(key, previous, item);
  const presented = keysPresented(presentedKey, plan.facts.keys);
  const matched = presented.find((candidate) => keyOpensDoor(candidate, door)) ?? presented[0] ?? null;
  const at = eventTime(plan, item);
  const row = { id: plan.newRowId(item.id), timestamp: at, accessGranted: item.granted, reason: item.reason, offline: item.offline, source: null };
  plan.log(key, keyLogRow(item, presentedKey, door, matched, row));
  plan.countDoorAccess(door, at);
}

/**
 * The batch's decisions (one per swipe, in order) and the writes that record
 * it. A swipe with an entry in `answers` is logged as answered; its effects
 * (a pending card, an expired card set inactive) follow the facts. Updates
 * `facts` as it goes.
 */
export function planAccessBatch(facts: PlanFacts, items: AccessInput[], answers: SwipeAnswers, now: Date, groups: AccessGroupIndex) {
  const plan = new BatchPlan(facts, answers, now, groups);
  for (const item of items) {
    if (item.kind === "swipe") {
      if (item.key) planKeySwipe(plan, item, item.key);
      else planCardSwipe(plan, item);
    } else if (item.key) planKeyEvent(plan, item, item.key);
    else planCardEvent(plan, item);
  }
  return { decisions: plan.decisions, writes: plan.writes() };
}
