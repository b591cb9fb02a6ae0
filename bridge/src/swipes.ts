import { randomUUID } from 'node:crypto';
import { isCanonicalCardId } from './card-id.js';
import type { BridgeConfig } from './config.js';
import type { Decision, OfflineEvent, OfflineReason, SwipeMessage } from './contract.js';
import type { Door } from './door.js';
import { errorMessage, type Logger } from './logger.js';
import type { MqttLink } from './mqtt-link.js';
import type { OfflineEvents } from './offline-events.js';
import type { OfflineStore } from './offline-store.js';

/** A card seen again within this window (since it was last seen) is the same swipe. */
export const REPEAT_WINDOW_MS = 2000;
/** Offline grants open the door this long unless the config sets unlockMs. */
export const OFFLINE_UNLOCK_MS = 3000;
/** Upper bound on a decision's unlockMs: a faulty message must not hold the door open. */
export const MAX_UNLOCK_MS = 60_000;

/** What the display shows for each offline decision (at most 16 characters a line). */
export const OFFLINE_LINES: Record<OfflineReason, [string, string]> = {
  granted: ['ACCESS GRANTED', 'OFFLINE MODE'],
  booking_window: ['ACCESS GRANTED', 'BOOKING'],
  unknown_card: ['ACCESS DENIED', 'OFFLINE MODE'],
  card_expired: ['CARD EXPIRED', 'OFFLINE MODE'],
  outside_booking_window: ['ACCESS DENIED', 'OUTSIDE BOOKING'],
  outside_schedule: ['ACCESS DENIED', 'Fuera de horario'],
  offline_deny: ['ACCESS DENIED', 'DOOR OFFLINE'],
};
const OFFLINE_GRANTS: ReadonlySet<OfflineReason> = new Set(['granted', 'booking_window']);

export interface SwipeOutcome {
  id: string;
  card: string;
  granted: boolean;
  reason: string;
  /** true when decided from the offline list (or the deny policy). */
  offline: boolean;
  /** How long the door was opened, 0 when denied. */
  unlockMs: number;
}

export interface SwipesOptions {
  config: Pick<BridgeConfig, 'decisionTimeoutMs' | 'unlockMs' | 'offline'>;
  door: Door;
  link: MqttLink;
  store: OfflineStore;
  events: OfflineEvents;
  /** `{prefix}/doors/{door}/swipe` */
  swipeTopic: string;
  logger: Logger;
  /** The bridge's clock: swipe times and offline decisions (timetables, expiries, windows). */
  clock: () => Date;
  /** Told of every grant, online or offline (first-person-in: door-mode.ts). */
  onGranted?: () => void;
}

/** The app's decision for a swipe, and the record of the answered swipe in the event queue. */
interface Answer {
  decision: Decision;
  recorded: Promise<void>;
}

/**
 * Turns card reads into decisions: drops repeats, handles one swipe at a time,
 * asks the app (swipe → decision, with a timeout) and otherwise decides from
 * the offline list. Both kinds of decision are queued as events until the
 * app's receipt names them.
 */
export class Swipes {
  private readonly lastSeen = new Map<string, number>();
  private readonly awaitingDecision = new Map<string, (decision: Decision) => void>();
  private queue: Promise<unknown> = Promise.resolve();
  private stopping = false;

  constructor(private readonly options: SwipesOptions) {}

  /**
   * Handles a canonical card id; rejects anything else. Resolves with the
   * outcome, or null for a repeat or once stop() was called.
   */
  handleCard(card: string): Promise<SwipeOutcome | null> {
    if (!isCanonicalCardId(card)) {
      return Promise.reject(new Error(`not a canonical card id (upper-case hex, 2 characters per byte): ${JSON.stringify(card)}`));
    }
    if (this.stopping) return Promise.resolve(null);
    if (this.isRepeat(card)) {
      this.options.logger.debug(`card ${card}: repeat within ${REPEAT_WINDOW_MS} ms ignored`);
      return Promise.resolve(null);
    }
    // One swipe at a time: the door, the screen and the decision belong to it.
    const outcome = this.queue.then(() => (this.stopping ? null : this.decide(card)));
    this.queue = outcome.catch(() => {});
    return outcome;
  }

  /** Hands a decision to the swipe waiting for it; a late one is only logged (no late unlock). */
  receiveDecision(decision: Decision): void {
    const deliver = this.awaitingDecision.get(decision.id);
    if (deliver === undefined) {
      this.options.logger.info(`decision ${decision.id} ignored: no swipe is waiting for it`);
      return;
    }
    deliver(decision);
  }

  /** No new swipes; resolves once the swipe in progress has finished. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.queue;
  }

  private isRepeat(card: string): boolean {
    const now = this.options.clock().getTime();
    const previous = this.lastSeen.get(card);
    this.lastSeen.set(card, now);
    for (const [seenCard, seenAt] of this.lastSeen) if (now - seenAt >= REPEAT_WINDOW_MS) this.lastSeen.delete(seenCard);
    return previous !== undefined && now - previous < REPEAT_WINDOW_MS;
  }

  private async decide(card: string): Promise<SwipeOutcome> {
    const id = randomUUID();
    const at = this.options.clock().toISOString();
    const answer = await this.askApp({ id, card, at, source: 'reader' });
    return answer === null ? this.decideOffline(id, card, at) : this.apply(answer, card);
  }

  /** The app's answer, or null when offline or when it did not come within decisionTimeoutMs. */
  private async askApp(swipe: SwipeMessage): Promise<Answer | null> {
    const { link, swipeTopic, config, logger } = this.options;
    if (!link.connected) return null;
    const answered = this.waitForAnswer(swipe);
    link.publish(swipeTopic, JSON.stringify(swipe)).catch((error) => logger.debug(`swipe ${swipe.id}: ${errorMessage(error)}`));
    const answer = await answered;
    if (answer === null) logger.warn(`swipe ${swipe.id}: no decision within ${config.decisionTimeoutMs} ms, deciding offline`);
    return answer;
  }

  private waitForAnswer(swipe: SwipeMessage): Promise<Answer | null> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.awaitingDecision.delete(swipe.id);
        resolve(null);
      }, this.options.config.decisionTimeoutMs);
      this.awaitingDecision.set(swipe.id, (decision) => {
        clearTimeout(timer);
        this.awaitingDecision.delete(swipe.id);
        // The app answers before it commits the swipe, so the swipe is kept until a receipt names it.
        // Queued here, while the decision's message is handled, not after the promise hops to apply():
        // a receipt in the next message (parsed from the same read) then finds it.
        const recorded = this.options.events.recordAnswered({
          id: swipe.id,
          card: swipe.card,
          at: swipe.at,
          granted: decision.granted,
          reason: decision.reason,
          offline: false,
        });
        resolve({ decision, recorded });
      });
    });
  }

  private async apply({ decision, recorded }: Answer, card: string): Promise<SwipeOutcome> {
    const { door, config, logger } = this.options;
    const unlockMs = decision.granted ? Math.min(config.unlockMs ?? decision.unlockMs, MAX_UNLOCK_MS) : 0;
    logger.info(`card ${card}: ${decision.granted ? 'granted' : 'denied'} (${decision.reason})`);
    // The record to the queue runs alongside: the door does not wait for the disk.
    if (decision.granted) {
      this.options.onGranted?.();
      await door.unlockFor(unlockMs);
    }
    await door.showDecision(decision.display.line1, decision.display.line2);
    await recorded;
    return { id: decision.id, card, granted: decision.granted, reason: decision.reason, offline: false, unlockMs };
  }

  private async decideOffline(id: string, card: string, at: string): Promise<SwipeOutcome> {
    const { door, store, events, config, logger } = this.options;
    const reason: OfflineReason = config.offline === 'deny' ? 'offline_deny' : store.checkCard(card, this.options.clock());
    const granted = OFFLINE_GRANTS.has(reason);
    const unlockMs = granted ? (config.unlockMs ?? OFFLINE_UNLOCK_MS) : 0;
    logger.info(`card ${card}: ${granted ? 'granted' : 'denied'} offline (${reason})`);
    // The event keeps the swipe's id: if the swipe did reach the app, the app sees one access, not two.
    const event: OfflineEvent = { id, card, at, granted, reason, offline: true };
    const recorded = events.record(event);
    if (granted) {
      this.options.onGranted?.();
      await door.unlockFor(unlockMs);
    }
    await door.showDecision(...OFFLINE_LINES[reason]);
    await recorded;
    return { id, card, granted, reason, offline: true, unlockMs };
  }
}
