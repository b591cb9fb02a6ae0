// Decides and records the doors' swipes and events. Both steps run the same
// plan (batch-plan.server.ts): the items in arrival order, each on the facts
// as earlier items left them, through the pure rules of rules.ts.
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
import { doorEventKey, inAccessTransaction, readAccessFacts, writeAccessBatch, type SqlReader } from "~/models/access-log.server";
import { readAccessGroupIndex, type AccessGroupIndex } from "~/models/access-group.server";
import { insertBuildingReadings, type NewBuildingReading } from "~/models/building-reading.server";
import { readBookingWindows } from "~/models/facility-booking.server";
import { readKeyFacts } from "~/models/door-key.server";
import { getDb, type Database } from "~/utils/db.server";
import { BOOKING_WINDOW_LEAD_MS, OFFLINE_WINDOW_HORIZON_MS, RECENT_WINDOW_MS } from "~/doors/rules";
import { keyLookup, planAccessBatch, type AccessInput, type PlanFacts, type SwipeAnswer, type SwipeAnswers, type SwipeDecision } from "./batch-plan.server";

export type { AccessInput, DoorEventInput, PresentedKey, SwipeAnswer, SwipeAnswers, SwipeDecision, SwipeInput } from "./batch-plan.server";

/** The answers of the items that have one; a redelivered swipe's answer repeats the first one's, which is kept. */
export function swipeAnswers(items: { input: AccessInput; answer?: SwipeAnswer }[]): SwipeAnswers {
  const answers: SwipeAnswers = new Map();
  for (const { input, answer } of items) {
    const key = doorEventKey(input.doorCode, input.id);
    if (answer && !answers.has(key)) answers.set(key, answer);
  }
  return answers;
}

export type AccessBatchResult = {
  /** The decisions of the batch's swipes that came without an answer. */
  decisions: SwipeDecision[];
  /** Cards this batch set inactive because they had expired (their doors' offline lists change). */
  deactivatedCardIds: string[];
};

const unique = <T>(values: T[]) => [...new Set(values)];

/**
 * Where a plan reads: the batch's write transaction, or what is committed
 * (the app's client, or the decisions' own statements: decision-reads.server.ts).
 */
type FactSource = SqlReader;
/**
 * The booking and key models type their executor as drizzle's database, of
 * which they only await `all`: a SqlReader is all they use.
 */
const asExecutor = (source: FactSource) => source as Pick<Database, "all">;

/** Keys that ended longer ago than this are not read: their PIN or token is just invalid. */
const ENDED_KEYS_MS = 7 * 24 * 3600_000;

/** Everything a plan of these items reads. */
async function readPlanFacts(source: FactSource, items: AccessInput[], now: Date): Promise<PlanFacts> {
  const facts = await readAccessFacts(source, {
    doorCodes: unique(items.map((item) => item.doorCode)),
    cardNumbers: unique(items.flatMap((item) => (item.cardNumber && !item.key ? [item.cardNumber] : []))),
    events: items.map((item) => ({ doorCode: item.doorCode, eventId: item.id })),
  });
  // Facility bookings that open these doors to these cards' holders.
  const bookingWindows = await readBookingWindows(asExecutor(source), {
    cardNumbers: [...facts.cards.keys()],
    doorCodes: [...facts.doors.keys()],
    from: now.getTime() - RECENT_WINDOW_MS,
    to: now.getTime() + OFFLINE_WINDOW_HORIZON_MS,
    leadMs: BOOKING_WINDOW_LEAD_MS,
  });
  const lookups = items.flatMap((item) => (item.key ? [keyLookup(item.key)] : [])).filter(Boolean);
  const keys = await readKeyFacts(asExecutor(source), {
    pins: unique(lookups.filter((lookup) => lookup.startsWith("pin:")).map((lookup) => lookup.slice(4))),
    qrHashes: unique(lookups.filter((lookup) => lookup.startsWith("qr:")).map((lookup) => lookup.slice(3))),
    since: now.getTime() - ENDED_KEYS_MS,
  });
  return { ...facts, bookingWindows, keys };
}

/**
 * Decides new swipes on the committed facts, with `pending` (received, not
 * yet committed) planned first. Returns the decisions of `fresh`'s swipes, in
 * order. Reads only, from `source` (default: the app's client).
 */
export async function decideAccessBatch(
  pending: AccessInput[],
  pendingAnswers: SwipeAnswers,
  fresh: AccessInput[],
  now: Date,
  groups: AccessGroupIndex,
  source: FactSource = getDb(),
): Promise<SwipeDecision[]> {
  const items = [...pending, ...fresh];
  const facts = await readPlanFacts(source, items, now);
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
    const facts = await readPlanFacts(tx, items, now);
    const unansweredSwipe = items.some((item) => item.kind === "swipe" && !answers.has(doorEventKey(item.doorCode, item.id)));
    const index = groups ?? (unansweredSwipe ? await readAccessGroupIndex(tx) : new Map());
    const { decisions, writes } = planAccessBatch(facts, items, answers, now, index);
    await writeAccessBatch(tx, writes, now);
    const unanswered = decisions.filter((decision) => !answers.has(doorEventKey(decision.doorCode, decision.id)));
    return { decisions: unanswered, deactivatedCardIds: writes.expiredCardIds };
  });
}
