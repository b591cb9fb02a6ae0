import type { BridgeConfig } from './config.js';
import type { DeviceEnvironment, Display, Lock } from './devices.js';
import { openDisplay } from './displays/index.js';
import { openLock } from './locks/index.js';
import { errorMessage, type Logger } from './logger.js';

export interface DoorOptions {
  /** How long a decision stays on the screen before it returns to idle. */
  displayHoldMs: number;
  logger: Logger;
  /** The idle screen's two lines, read each time it is shown. */
  idleLines: () => [string, string];
}

/**
 * The door itself: the lock (opened for a while, then relocked) and what the
 * display shows (the idle lines, or a decision held for displayHoldMs). Once
 * shutDown() has begun it never opens the lock again.
 */
export class Door {
  private lock: Lock | null = null;
  private display: Display | null = null;
  private open = false;
  private relockTimer: NodeJS.Timeout | null = null;
  private holdTimer: NodeJS.Timeout | null = null;
  private shown = { line1: '', line2: '' };
  private shuttingDown = false;
  /** Held released by the door's timetable (office mode): no relock until let go. */
  private held = false;
  /** When the lock was last shut again after an opening (performance.now()). */
  private relockedAt = -Infinity;

  constructor(private readonly options: DoorOptions) {}

  get lockOpen(): boolean {
    return this.open;
  }

  /** The lock is released now, or was shut again less than graceMs ago. */
  releasedWithin(graceMs: number): boolean {
    return this.open || performance.now() - this.relockedAt <= graceMs;
  }

  get shownLines(): { line1: string; line2: string } {
    return this.shown;
  }

  /** Opens the lock (commanded shut) and then the display. */
  async openHardware(config: Pick<BridgeConfig, 'lock' | 'display'>, devices: DeviceEnvironment): Promise<void> {
    this.lock = await openLock(config.lock, devices);
    this.display = await openDisplay(config.display, devices);
  }

  async showIdle(): Promise<void> {
    if (this.holdTimer !== null || this.shuttingDown) return;
    await this.show(...this.options.idleLines());
  }

  /** Shows a decision's lines for displayHoldMs, then the idle screen again. */
  async showDecision(line1: string, line2: string): Promise<void> {
    if (this.holdTimer !== null) clearTimeout(this.holdTimer);
    this.holdTimer = setTimeout(() => {
      this.holdTimer = null;
      void this.showIdle();
    }, this.options.displayHoldMs);
    await this.show(line1, line2);
  }

  /** Opens the lock for ms; a second opening while open extends it. */
  async unlockFor(ms: number): Promise<void> {
    if (this.shuttingDown) return; // never open a door that is shutting down
    if (this.relockTimer !== null) clearTimeout(this.relockTimer);
    this.relockTimer = setTimeout(() => void this.relock(), ms);
    if (this.open) return;
    this.open = true;
    try {
      await this.lock?.unlock();
    } catch (error) {
      this.options.logger.error(`lock: cannot unlock: ${errorMessage(error)}`);
    }
  }

  /**
   * Holds the lock released (the timetable's office mode) or lets it go:
   * released, it locks at once unless a grant's opening is still running.
   */
  async setHeld(held: boolean): Promise<void> {
    if (this.shuttingDown || held === this.held) return;
    this.held = held;
    if (held) {
      if (this.open) return;
      this.open = true;
      try {
        await this.lock?.unlock();
      } catch (error) {
        this.options.logger.error(`lock: cannot unlock: ${errorMessage(error)}`);
      }
    } else if (this.open && this.relockTimer === null) {
      await this.relock();
    }
  }

  /** First step of a shutdown (fail-secure): no opening from now on, and the lock is shut and released. */
  async shutDown(): Promise<void> {
    this.shuttingDown = true;
    this.held = false;
    if (this.relockTimer !== null) clearTimeout(this.relockTimer);
    if (this.holdTimer !== null) clearTimeout(this.holdTimer);
    this.open = false;
    await this.lock?.close().catch((error) => this.options.logger.error(`lock: cannot lock on shutdown: ${errorMessage(error)}`));
  }

  /** Last step of a shutdown: OUT OF SERVICE on the screen, and the display released. */
  async closeDisplay(): Promise<void> {
    await this.show('OUT OF SERVICE', '');
    await this.display?.close().catch((error) => this.options.logger.warn(`display: ${errorMessage(error)}`));
  }

  private async show(line1: string, line2: string): Promise<void> {
    this.shown = { line1, line2 };
    try {
      await this.display?.show(line1, line2);
    } catch (error) {
      this.options.logger.error(`display: ${errorMessage(error)}`);
    }
  }

  private async relock(): Promise<void> {
    this.relockTimer = null;
    if (this.held) return; // the timetable keeps it released
    this.open = false;
    this.relockedAt = performance.now();
    if (this.shuttingDown) return; // shutDown() locks the door itself
    try {
      await this.lock?.lock();
    } catch (error) {
      this.options.logger.error(`lock: cannot lock: ${errorMessage(error)}`);
    }
  }
}
