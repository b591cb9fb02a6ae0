import type { OfflineEvent } from './contract.js';
import { errorMessage, type Logger } from './logger.js';
import type { MqttLink } from './mqtt-link.js';
import type { OfflineStore } from './offline-store.js';

export interface OfflineEventsOptions {
  store: OfflineStore;
  link: MqttLink;
  /** `{prefix}/doors/{door}/events` */
  topic: string;
  logger: Logger;
}

/**
 * The queue of offline decisions: each is kept on disk (OfflineStore) from the
 * moment it is taken until the broker acknowledged its publish, and sent
 * oldest first, one at a time, whenever the link is up.
 */
export class OfflineEvents {
  private sending = false;
  private stopping = false;

  constructor(private readonly options: OfflineEventsOptions) {}

  get pendingCount(): number {
    return this.options.store.pendingEvents().length;
  }

  /** Stores the event (fsynced), then sends it if connected. */
  async record(event: OfflineEvent): Promise<void> {
    try {
      await this.options.store.appendEvent(event);
    } catch (error) {
      this.options.logger.error(`offline queue: ${errorMessage(error)}`);
    }
    void this.send();
  }

  /** Called on every (re)connection. */
  onConnect(): void {
    void this.send();
  }

  stop(): void {
    this.stopping = true;
  }

  private async send(): Promise<void> {
    const { store, link, topic, logger } = this.options;
    if (this.sending) return;
    this.sending = true;
    try {
      for (;;) {
        const next = store.pendingEvents()[0];
        if (next === undefined || !link.connected || this.stopping) break;
        await link.publish(topic, JSON.stringify(next));
        await store.acknowledgeEvent(next.id);
        logger.debug(`offline event ${next.id} delivered`);
      }
    } catch (error) {
      logger.warn(`offline events: delivery interrupted (${errorMessage(error)}); will retry on reconnect`);
    } finally {
      this.sending = false;
    }
  }
}
