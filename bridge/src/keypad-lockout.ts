/**
 * The guard against guessing PINs (issue 40), the same rule as the app's
 * (keypadPauseMs in app/doors/rules.ts, checked by
 * tests/integration/mqtt-contract.test.ts): wrong PINs at the door within
 * WRONG_PIN_WINDOW_MS count; the first FREE_WRONG_PINS cost nothing, after each
 * later one the keypad takes no PIN for a pause that doubles (1, 2, 4, 8,
 * 16 s), and the WRONG_PIN_LIMIT-th (and each one after it within the window)
 * locks it for KEYPAD_LOCK_MS. The cost falls on the guesser: each guess
 * waits longer, a guest behind them waits seconds, at most a minute.
 */
export const FREE_WRONG_PINS = 3;
export const WRONG_PIN_LIMIT = 8;
export const WRONG_PIN_WINDOW_MS = 10 * 60_000;
/** How long a locked keypad refuses every PIN. */
export const KEYPAD_LOCK_MS = 60_000;

/** How long the keypad takes no PIN after this many wrong PINs within the window. */
export function keypadPauseMs(failures: number): number {
  if (failures < FREE_WRONG_PINS) return 0;
  if (failures >= WRONG_PIN_LIMIT) return KEYPAD_LOCK_MS;
  return 1000 * 2 ** (failures - FREE_WRONG_PINS);
}

/**
 * The offline guard, by the bridge's clock: while paused or locked every PIN
 * is refused (keypad_locked) and not counted. Kept in memory: a restart
 * forgets it.
 */
export class KeypadLockout {
  private failures: number[] = [];
  private lockedUntil = 0;

  isLocked(now: number): boolean {
    return now < this.lockedUntil;
  }

  /** Counts a wrong PIN; returns true when it locks the keypad (the WRONG_PIN_LIMIT-th within the window). */
  recordWrongPin(now: number): boolean {
    this.failures = [...this.failures.filter((at) => now - at < WRONG_PIN_WINDOW_MS), now];
    const pause = keypadPauseMs(this.failures.length);
    if (pause > 0) this.lockedUntil = now + pause;
    return this.failures.length === WRONG_PIN_LIMIT;
  }
}
