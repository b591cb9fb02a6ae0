import type { ContactMessage } from './contract.js';
import type { ContactState } from './devices.js';
import type { Door } from './door.js';
import { errorMessage, type Logger } from './logger.js';
import type { MqttLink } from './mqtt-link.js';

export interface DoorContactOptions {
  door: Door;
  link: MqttLink;
  /** `{prefix}/doors/{door}/contact` */
  topic: string;
  /** An opening this long after the lock was shut again still counts as released. */
  graceMs: number;
  clock: () => Date;
  logger: Logger;
}

/**
 * The door-position switch's reports: each change (open/closed) is published
 * retained with whether the bridge had released the lock at that moment, and
 * the last one again on every connect, so the app knows the door's position
 * whatever it missed. The app decides what is an alarm (docs/mqtt.md).
 */
export class DoorContact {
  private last: ContactMessage | null = null;

  constructor(private readonly options: DoorContactOptions) {}

  get state(): ContactState | null {
    return this.last?.state ?? null;
  }

  receive(state: ContactState): void {
    if (this.last?.state === state) return;
    const { door, graceMs, clock, logger } = this.options;
    this.last = { state, released: door.releasedWithin(graceMs), at: clock().toISOString() };
    logger.info(`contact: door ${state}${state === 'open' && !this.last.released ? ' without a grant' : ''}`);
    this.publish();
  }

  onConnect(): void {
    this.publish();
  }

  private publish(): void {
    const { link, topic, logger } = this.options;
    if (this.last === null || !link.connected) return;
    link
      .publish(topic, JSON.stringify(this.last), { retain: true })
      .catch((error) => logger.warn(`contact: not reported (sent again on connect): ${errorMessage(error)}`));
  }
}
