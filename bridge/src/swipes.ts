import { randomUUID } from 'node:crypto';
import { isCanonicalCardId } from './card-id.js';
import type { BridgeConfig } from './config.js';
import type { CredentialFields, Decision, OfflineEvent, OfflineReason, SwipeMessage } from './contract.js';
import type { Credential } from './devices.js';
import type { Door } from './door.js';
import { LCD_COLUMNS } from './displays/lcd-text.js';
import { KeypadLockout } from './keypad-lockout.js';
import { errorMessage, type Logger } from './logger.js';
import type { MqttLink } from './mqtt-link.js';
import type { OfflineEvents } from './offline-events.js';
import type { OfflineStore } from './offline-store.js';
import { MAX_PIN_DIGITS, MIN_PIN_DIGITS } from './readers/keypad.js';
import { canonicalQrToken } from './readers/qr.js';

/** A card (or QR code) seen again within this window (since it was last seen) is the same swipe. */
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
  invalid_key: ['ACCESS DENIED', 'Código no válido'],
  outside_key_window: ['ACCESS DENIED', 'Fuera de periodo'],
  keypad_locked: ['Teclado', 'bloqueado'],
};
const OFFLINE_GRANTS: ReadonlySet<OfflineReason> = new Set(['granted', 'booking_window']);

/** The swipe's message field and source for each kind of credential. */
const SOURCES = { card: 'reader', pin: 'keypad', qr: 'qr' } as const;

/** A grant by a key greets its holder by first name (the first word if the whole does not fit). */
export function keyGreeting(name: string): string | null {
  const first = name.trim();
  if (first === '') return null;
  const whole = `Hola, ${first}`;
  return whole.length <= LCD_COLUMNS ? whole : `Hola, ${first.split(/\s+/)[0]}`.slice(0, LCD_COLUMNS);
}

/** How a credential appears in the log: a card by its id, a PIN or a QR token never. */
export function describeCredential(credential: Credential): string {
  if (credential.kind === 'card') return `card ${credential.card}`;
  return credential.kind === 'pin' ? 'PIN ****' : 'QR LC1-****';
}

function credentialFields(credential: Credential): CredentialFields {
  if (credential.kind === 'card') return { card: credential.card };
  return credential.kind === 'pin' ? { pin: credential.pin } : { qr: credential.qr };
}

/** Why a credential handed over programmatically is not one a reader would read; null when it is. */
function invalidCredential(credential: Credential): string | null {
  if (credential.kind === 'card') {
    return isCanonicalCardId(credential.card) ? null : `not a canonical card id (upper-case hex, 2 characters per byte): ${JSON.stringify(credential.card)}`;
  }
  if (credential.kind === 'pin') {
    return new RegExp(`^\\d{${MIN_PIN_DIGITS},${MAX_PIN_DIGITS}}$`).test(credential.pin) ? null : `a PIN has ${MIN_PIN_DIGITS} to ${MAX_PIN_DIGITS} digits`;
  }
  return canonicalQrToken(credential.qr) === credential.qr ? null : "not a key's QR token (LC1- and upper-case base32)";
}

export type SwipeOutcome = {
  id: string;
  granted: boolean;
  reason: string;
  /** true when decided from the offline list (or the deny policy). */
  offline: boolean;
  /** How long the door was opened, 0 when denied. */
  unlockMs: number;
} & CredentialFields;

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
  private readonly lockout = new KeypadLockout();
  private queue: Promise<unknown> = Promise.resolve();
  private stopping = false;

  constructor(private readonly options: SwipesOptions) {}

  /**
   * Handles a canonical card id; rejects anything else. Resolves with the
   * outcome, or null for a repeat or once stop() was called.
   */
  handleCard(card: string): Promise<SwipeOutcome | null> {
    return this.handle({ kind: 'card', card });
  }

  /**
   * Handles what a reader read: a canonical card id, a PIN (4-12 digits) or a
   * QR token; rejects anything else. A card or a QR code seen again within
   * REPEAT_WINDOW_MS is a repeat (readers and scanners repeat while it stays in
   * front of them); a PIN is always a new swipe. Resolves with the outcome,
   * or null for a repeat or once stop() was called.
   */
  handle(credential: Credential): Promise<SwipeOutcome | null> {
    const invalid = invalidCredential(credential);
    if (invalid !== null) return Promise.reject(new Error(invalid));
    if (this.stopping) return Promise.resolve(null);
    if (credential.kind !== 'pin' && this.isRepeat(credential.kind === 'card' ? `card:${credential.card}` : `qr:${credential.qr}`)) {
      this.options.logger.debug(`${describeCredential(credential)}: repeat within ${REPEAT_WINDOW_MS} ms ignored`);
      return Promise.resolve(null);
    }
    // One swipe at a time: the door, the screen and the decision belong to it.
    const outcome = this.queue.then(() => (this.stopping ? null : this.decide(credential)));
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

  private isRepeat(seen: string): boolean {
    const now = this.options.clock().getTime();
    const previous = this.lastSeen.get(seen);
    this.lastSeen.set(seen, now);
    for (const [seenCard, seenAt] of this.lastSeen) if (now - seenAt >= REPEAT_WINDOW_MS) this.lastSeen.delete(seenCard);
    return previous !== undefined && now - previous < REPEAT_WINDOW_MS;
  }

  private async decide(credential: Credential): Promise<SwipeOutcome> {
    const id = randomUUID();
    const at = this.options.clock().toISOString();
    const fields = credentialFields(credential);
    const answer = await this.askApp({ id, at, source: SOURCES[credential.kind], ...fields }, fields);
    return answer === null ? this.decideOffline(id, credential, at) : this.apply(answer, credential);
  }

  /** The app's answer, or null when offline or when it did not come within decisionTimeoutMs. */
  private async askApp(swipe: SwipeMessage, fields: CredentialFields): Promise<Answer | null> {
    const { link, swipeTopic, config, logger } = this.options;
    if (!link.connected) return null;
    const answered = this.waitForAnswer(swipe, fields);
    link.publish(swipeTopic, JSON.stringify(swipe)).catch((error) => logger.debug(`swipe ${swipe.id}: ${errorMessage(error)}`));
    const answer = await answered;
    if (answer === null) logger.warn(`swipe ${swipe.id}: no decision within ${config.decisionTimeoutMs} ms, deciding offline`);
    return answer;
  }

  private waitForAnswer(swipe: SwipeMessage, fields: CredentialFields): Promise<Answer | null> {
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
          at: swipe.at,
          ...fields,
          granted: decision.granted,
          reason: decision.reason,
          offline: false,
        });
        resolve({ decision, recorded });
      });
    });
  }

  private async apply({ decision, recorded }: Answer, credential: Credential): Promise<SwipeOutcome> {
    const { door, config, logger } = this.options;
    const unlockMs = decision.granted ? Math.min(config.unlockMs ?? decision.unlockMs, MAX_UNLOCK_MS) : 0;
    logger.info(`${describeCredential(credential)}: ${decision.granted ? 'granted' : 'denied'} (${decision.reason})`);
    // The record to the queue runs alongside: the door does not wait for the disk.
    if (decision.granted) {
      this.options.onGranted?.();
      await door.unlockFor(unlockMs);
    }
    await door.showDecision(decision.display.line1, decision.display.line2);
    await recorded;
    return { id: decision.id, ...credentialFields(credential), granted: decision.granted, reason: decision.reason, offline: false, unlockMs };
  }

  private async decideOffline(id: string, credential: Credential, at: string): Promise<SwipeOutcome> {
    const { door, events, config, logger } = this.options;
    const { reason, lines } = this.offlineDecision(credential);
    const granted = OFFLINE_GRANTS.has(reason);
    const unlockMs = granted ? (config.unlockMs ?? OFFLINE_UNLOCK_MS) : 0;
    logger.info(`${describeCredential(credential)}: ${granted ? 'granted' : 'denied'} offline (${reason})`);
    // The event keeps the swipe's id: if the swipe did reach the app, the app sees one access, not two.
    const event: OfflineEvent = { id, ...credentialFields(credential), at, granted, reason, offline: true };
    const recorded = events.record(event);
    if (granted) {
      this.options.onGranted?.();
      await door.unlockFor(unlockMs);
    }
    await door.showDecision(...lines);
    await recorded;
    return { id, ...credentialFields(credential), granted, reason, offline: true, unlockMs };
  }

  /**
   * The offline reason and the screen's lines: cards from the list's cards,
   * PINs and QR tokens from its keys; PINs refused while the keypad is locked,
   * and a wrong PIN counted towards the lock (its screen already says locked
   * when it is the one that locks).
   */
  private offlineDecision(credential: Credential): { reason: OfflineReason; lines: [string, string] } {
    const { store, config, logger } = this.options;
    const now = this.options.clock();
    if (config.offline === 'deny') return { reason: 'offline_deny', lines: OFFLINE_LINES.offline_deny };
    if (credential.kind === 'card') {
      const reason = store.checkCard(credential.card, now);
      return { reason, lines: OFFLINE_LINES[reason] };
    }
    if (credential.kind === 'pin' && this.lockout.isLocked(now.getTime())) return { reason: 'keypad_locked', lines: OFFLINE_LINES.keypad_locked };
    const check = store.checkKey(credential, now);
    if (check.reason === 'granted') {
      const greeting = keyGreeting(check.name);
      return { reason: 'granted', lines: greeting === null ? OFFLINE_LINES.granted : [greeting, OFFLINE_LINES.granted[1]] };
    }
    if (credential.kind === 'pin' && check.reason === 'invalid_key' && this.lockout.recordWrongPin(now.getTime())) {
      logger.warn('keypad locked: too many wrong PINs offline');
      return { reason: check.reason, lines: OFFLINE_LINES.keypad_locked };
    }
    return { reason: check.reason, lines: OFFLINE_LINES[check.reason] };
  }
}
