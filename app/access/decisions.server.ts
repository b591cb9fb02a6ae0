// Decisions: the doors' swipes are answered as they arrive, on what is
// committed with whatever is received but not yet committed planned first
// (decideAccessBatch), and the decisions go out at once; then the swipes, and
// the doors' events, go to the recording module. A person at the door never
// waits for a commit: a commit can stall for tens of milliseconds on a busy
// disk (docs/decisions/0004). The bridge keeps each answered swipe until a
// receipt says it is stored.
import type { IPublishPacket } from "mqtt";
import { canonicalCardId, doorEventSchema, parseDoorTopic, presentedCredential, swipeIdSchema, swipeSchema } from "~/doors/contract";
import { decisionDisplay, KEYPAD_FAILURE_WINDOW_MS, KEYPAD_MAX_FAILURES, keypadPauseMs } from "~/doors/rules";
import { keypadLockedStaffMail } from "~/mail/staff-mail.server";
import { getDoorByCode } from "~/models/door.server";
import { trySendStaffNotice } from "~/utils/mail.server";
import type { AccessGroupsState } from "./access-groups.server";
import type { DecisionReads } from "./decision-reads.server";
import type { DecisionSender } from "./decision-sender.server";
import type { AccessEventBus } from "./events.server";
import { countQueuedEvent } from "./metrics.server";
import { parseJsonPayload, type AccessContext, type AccessModule, type ModuleSubscription } from "./module.server";
import { decideAccessBatch, swipeAnswers, type AccessInput, type SwipeDecision } from "./record-batch.server";
import type { QueuedInput, Recording } from "./recording.server";

export type DecisionsDeps = {
  /** Where the swipes go once answered (and the events at once). */
  recording: Recording;
  /** The access groups' timetables, kept in memory (access-groups.server.ts). */
  groups: AccessGroupsState;
  /** The reads of a decision, on statements this process keeps (decision-reads.server.ts). */
  reads: DecisionReads;
  sender: DecisionSender;
  /** Hears of every grant, online or in a door's event (`granted`). */
  events: AccessEventBus;
  /** Wrong PINs per door and the keypads they locked. */
  keypad?: KeypadLockout;
};

/** Largest set of swipes decided together. */
const MAX_DECIDED_TOGETHER = 500;

export class Decisions implements AccessModule {
  readonly subscriptions: ModuleSubscription[];
  /** Received, not yet answered. */
  private readonly undecided: QueuedInput[] = [];
  private deciding: Promise<void> | null = null;
  private readonly keypad: KeypadLockout;

  constructor(
    private readonly context: AccessContext,
    private readonly deps: DecisionsDeps,
  ) {
    this.keypad = deps.keypad ?? new KeypadLockout();
    this.subscriptions = [
      { filter: `${context.prefix}/doors/+/swipe`, shared: true },
      { filter: `${context.prefix}/doors/+/events`, shared: true },
    ];
  }

  onMessage(topic: string, payload: Buffer, packet: IPublishPacket) {
    const parsed = parseDoorTopic(this.context.prefix, topic);
    if (parsed?.kind === "swipe") this.receiveSwipe(parsed.doorCode, payload, packet);
    else if (parsed?.kind === "events") this.receiveEvent(parsed.doorCode, payload);
    else return false;
    return true;
  }

  /** Resolves once everything received is answered and handed to the recording. */
  async stop() {
    while (this.deciding) await this.deciding;
  }

  private receiveSwipe(doorCode: string, payload: Buffer, packet: IPublishPacket) {
    const json = parseJsonPayload(payload);
    const id = swipeIdSchema.safeParse(json);
    if (!id.success) {
      console.warn(`[access] door ${doorCode}: swipe without a usable id ignored`);
      return;
    }
    const swipe = swipeSchema.safeParse(json);
    const rawCard = (json as { card?: unknown }).card;
    const credential = swipe.success ? presentedCredential(swipe.data) : null;
    this.enqueue({
      input: {
        kind: "swipe",
        id: id.data.id,
        doorCode,
        cardNumber: credential?.kind === "card" ? canonicalCardId(credential.card) : null,
        rawCard: typeof rawCard === "string" ? rawCard : "",
        ...(credential?.kind === "pin" ? { key: { kind: "pin" as const, secret: credential.pin } } : {}),
        ...(credential?.kind === "qr" ? { key: { kind: "qr" as const, secret: credential.qr } } : {}),
        source: swipe.success ? swipe.data.source : null,
        ipAddress: this.context.broker?.addressOf(doorCode) ?? null,
      },
      correlationData: packet.properties?.correlationData,
      receivedAt: performance.now(),
    });
  }

  private receiveEvent(doorCode: string, payload: Buffer) {
    const event = doorEventSchema.safeParse(parseJsonPayload(payload));
    const credential = event.success ? presentedCredential(event.data) : null;
    const key = credential?.kind === "pin" ? { kind: "pin" as const, secret: credential.pin } : credential?.kind === "qr" ? { kind: "qr" as const, secret: credential.qr } : undefined;
    const cardNumber = credential?.kind === "card" ? canonicalCardId(credential.card) : key ? "" : null;
    if (!event.success || cardNumber === null) {
      console.warn(`[access] door ${doorCode}: invalid event ignored`);
      return;
    }
    countQueuedEvent(event.data.offline);
    if (event.data.granted) this.deps.events.emit("granted", doorCode, new Date(event.data.at));
    this.enqueue({
      input: {
        kind: "event",
        id: event.data.id,
        doorCode,
        cardNumber,
        ...(key ? { key } : {}),
        at: new Date(event.data.at),
        granted: event.data.granted,
        reason: event.data.reason,
        offline: event.data.offline,
        ipAddress: this.context.broker?.addressOf(doorCode) ?? null,
      },
    });
  }

  private enqueue(item: QueuedInput) {
    this.undecided.push(item);
    this.deciding ??= this.decide();
  }

  /**
   * Answers the swipes that arrived, at once, on what is committed with what
   * is still to be committed planned first; then hands them (and the events)
   * to the recording.
   */
  private async decide() {
    while (this.undecided.length > 0) {
      // Whatever arrives in the same turn is answered together.
      await new Promise((resolve) => setImmediate(resolve));
      const fresh = this.undecided.splice(0, MAX_DECIDED_TOGETHER);
      const now = this.context.clock();
      const { recording, groups, reads, sender, events } = this.deps;
      try {
        const pending = recording.pending();
        const inputs = (items: QueuedInput[]) => items.map((item) => item.input);
        const decisions = await decideAccessBatch(inputs(pending), swipeAnswers(pending), inputs(fresh), now, await groups.current(), reads);
        const swipes = fresh.filter((item) => item.input.kind === "swipe");
        swipes.forEach((item, index) => {
          const decision = this.keypad.apply(item.input, decisions[index]!, now);
          item.answer = { granted: decision.granted, reason: decision.reason, at: now.getTime() };
          sender.send(decision, item.correlationData, item.receivedAt);
          if (decision.granted && !decision.duplicate) events.emit("granted", decision.doorCode, now);
        });
      } catch (error) {
        // Unanswered, they are decided in their batch and answered after its commit.
        console.error(`[access] could not decide ${fresh.length} swipes/events before recording them`, error);
      }
      recording.add(fresh);
    }
    this.deciding = null;
  }
}

/**
 * Guessing PINs (docs/access-keys.md; the rule is keypadPauseMs in
 * app/doors/rules.ts): wrong PINs at a door within 10 minutes pause its
 * keypad for longer and longer (after the 3rd: 1, 2, 4, 8, 16 s) and the 8th
 * locks it for a minute; while paused or locked every PIN there is refused
 * `keypad_locked` (QR and cards are not affected) and is not counted. Kept in
 * memory by the process that decides the door's swipes; the lockout of a run
 * of guesses is logged and sends one staff notice.
 */
export class KeypadLockout {
  private readonly doors = new Map<string, { failures: number[]; lockedUntil: number }>();

  constructor(private readonly onLock: (doorCode: string, at: Date, until: Date) => void = noticeKeypadLocked) {}

  /** The decision to publish for this swipe: `keypad_locked` while its door's keypad is paused or locked. */
  apply(input: AccessInput, decision: SwipeDecision, now: Date): SwipeDecision {
    if (input.kind !== "swipe" || input.key?.kind !== "pin" || decision.duplicate) return decision;
    const at = now.getTime();
    const state = this.doors.get(input.doorCode) ?? { failures: [], lockedUntil: 0 };
    this.doors.set(input.doorCode, state);
    if (state.lockedUntil > at) {
      const locked = { granted: false, reason: "keypad_locked" as const };
      return { ...decision, ...locked, display: decisionDisplay(locked, null, null) };
    }
    state.failures = state.failures.filter((failure) => failure > at - KEYPAD_FAILURE_WINDOW_MS);
    if (decision.reason !== "invalid_key") {
      if (state.failures.length === 0) this.doors.delete(input.doorCode);
      return decision;
    }
    state.failures.push(at);
    const pause = keypadPauseMs(state.failures.length);
    if (pause > 0) state.lockedUntil = at + pause;
    if (state.failures.length === KEYPAD_MAX_FAILURES) this.onLock(input.doorCode, now, new Date(state.lockedUntil));
    return decision;
  }
}

function noticeKeypadLocked(doorCode: string, at: Date, until: Date) {
  console.warn(`[access] door ${doorCode}: keypad locked until ${until.toISOString()} after ${KEYPAD_MAX_FAILURES} wrong PINs`);
  getDoorByCode(doorCode)
    .then((door) => trySendStaffNotice(keypadLockedStaffMail({ doorName: door?.name ?? null, doorCode, at, until })))
    .catch((error: unknown) => console.error(`[access] keypad lockout notice for ${doorCode}`, error));
}
