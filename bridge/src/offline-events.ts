import type { AnsweredSwipeEvent, DoorEvent, OfflineEvent, Receipt } from './contract.js';
import { errorMessage, type Logger } from './logger.js';
import type { MqttLink } from './mqtt-link.js';
import type { OfflineStore } from './offline-store.js';

export interface OfflineEventsOptions {
  store: OfflineStore;
  link: MqttLink;
  /** `{prefix}/doors/{door}/events` */
  topic: string;
  /** An event without a receipt is sent again after this long. */
  resendMs: number;
  logger: Logger;
}

/**
 * The queue of door events, delivered at least once: each event stays on disk
 * (OfflineStore) until a receipt from the app names it. Events are offline
 * decisions and swipes the app answered: the app answers a swipe before it
 * commits it, so the swipe is kept until the app says it is stored, and only
 * sent if that does not happen in time. Every event without a receipt is sent
 * on each connect and again every resendMs while connected, oldest first, one
 * publish at a time. The broker's PUBACK is not enough: nobody may have been
 * subscribed (the app restarting), so the message went nowhere. Resending is
 * harmless: the app stores events idempotently by door and id.
 */
export class OfflineEvents {
  /** When each event was last sent on the current connection (ms since the epoch). */
  private readonly sentAt = new Map<string, number>();
  private sending = false;
  /** Set when a send was asked for while one was running: it runs again. */
  private sendAgain = false;
  private resendTimer: NodeJS.Timeout | null = null;
  private stopping = false;

  constructor(private readonly options: OfflineEventsOptions) {}

  get pendingCount(): number {
    return this.options.store.pendingCount;
  }

  /** Stores the offline decision (fsynced), then sends it if connected. */
  async record(event: OfflineEvent): Promise<void> {
    await this.append(event);
    this.sendDue();
  }

  /**
   * Stores a swipe the app answered (fsynced). Its swipe already reached the
   * app, so it counts as sent now: it goes out only if no receipt names it
   * within resendMs, or on a new connection.
   */
  async recordAnswered(event: AnsweredSwipeEvent): Promise<void> {
    this.sentAt.set(event.id, Date.now());
    await this.append(event);
    if (!this.sending) this.scheduleResend();
  }

  /** A new connection: everything without a receipt is sent again. */
  onConnect(): void {
    this.sentAt.clear();
    this.sendDue();
  }

  onDisconnect(): void {
    this.clearResendTimer();
  }

  /**
   * What the app has stored leaves the queue: events named in `ids`, answered
   * swipes named in `swipes` (see OfflineStore.acknowledge). Ids not in the
   * queue are ignored.
   */
  async receive(receipt: Receipt): Promise<void> {
    const removed = await this.options.store.acknowledge(receipt);
    for (const id of removed) this.sentAt.delete(id);
    if (removed.length > 0) this.options.logger.debug(`events receipted by the app: ${removed.join(', ')}`);
  }

  stop(): void {
    this.stopping = true;
    this.clearResendTimer();
  }

  private async append(event: DoorEvent): Promise<void> {
    try {
      await this.options.store.appendEvent(event);
    } catch (error) {
      this.options.logger.error(`event queue: ${errorMessage(error)}`);
    }
  }

  private sendDue(): void {
    if (this.sending) {
      this.sendAgain = true;
      return;
    }
    this.sending = true;
    void this.sendLoop().finally(() => {
      this.sending = false;
      this.scheduleResend();
    });
  }

  private async sendLoop(): Promise<void> {
    const { store, link, topic, resendMs, logger } = this.options;
    try {
      do {
        this.sendAgain = false;
        for (const event of store.pendingEvents()) {
          if (!link.connected || this.stopping) return;
          const sentAt = this.sentAt.get(event.id);
          if (!store.isPending(event.id) || (sentAt !== undefined && Date.now() - sentAt < resendMs)) continue;
          // Counted as sent before the PUBACK: a publish that fails is retried after resendMs, not at once.
          this.sentAt.set(event.id, Date.now());
          await link.publish(topic, JSON.stringify(event));
          if (event.offline) logger.debug(`offline event ${event.id} sent`);
          else logger.info(`answered swipe ${event.id} sent again: no receipt from the app yet`);
        }
      } while (this.sendAgain);
    } catch (error) {
      logger.warn(`events: sending interrupted (${errorMessage(error)}); they stay queued`);
    }
  }

  /** Wakes up when the oldest send without a receipt is resendMs old. */
  private scheduleResend(): void {
    this.clearResendTimer();
    const { store, link, resendMs } = this.options;
    if (this.stopping || !link.connected || store.pendingCount === 0) return;
    let due = Infinity;
    for (const event of store.pendingEvents()) due = Math.min(due, (this.sentAt.get(event.id) ?? 0) + resendMs);
    this.resendTimer = setTimeout(() => {
      this.resendTimer = null;
      this.sendDue();
    }, Math.max(0, due - Date.now()));
  }

  private clearResendTimer(): void {
    if (this.resendTimer !== null) clearTimeout(this.resendTimer);
    this.resendTimer = null;
  }
}
