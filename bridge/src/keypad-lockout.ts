/** Wrong PINs at a door within WRONG_PIN_WINDOW_MS that lock its keypad. */
export const WRONG_PIN_LIMIT = 5;
export const WRONG_PIN_WINDOW_MS = 5 * 60_000;
/** How long a locked keypad refuses every PIN. */
export const KEYPAD_LOCK_MS = 5 * 60_000;

/**
 * The offline guard against guessing PINs, by the bridge's clock: after
 * WRONG_PIN_LIMIT wrong PINs within WRONG_PIN_WINDOW_MS, every PIN is refused
 * (keypad_locked) for KEYPAD_LOCK_MS. The app applies the same rule online.
 * Kept in memory: a restart forgets it.
 */
export class KeypadLockout {
  private failures: number[] = [];
  private lockedUntil = 0;

  isLocked(now: number): boolean {
    return now < this.lockedUntil;
  }

  /** Counts a wrong PIN; returns true when it locks the keypad. */
  recordWrongPin(now: number): boolean {
    this.failures = [...this.failures.filter((at) => now - at < WRONG_PIN_WINDOW_MS), now];
    if (this.failures.length < WRONG_PIN_LIMIT) return false;
    this.failures = [];
    this.lockedUntil = now + KEYPAD_LOCK_MS;
    return true;
  }
}
