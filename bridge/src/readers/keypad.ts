import type { ReaderConfig } from '../config.js';
import type { CredentialListener, DeviceEnvironment, Reader } from '../devices.js';
import { LineSplitter, type LineResult } from './line-splitter.js';
import { openParsedSerialReader } from './parsed-input.js';
import { decodeWiegandBits } from './wiegand.js';

/** Shortest and longest PIN a keypad hands over; other entries are refused at the door. */
export const MIN_PIN_DIGITS = 4;
export const MAX_PIN_DIGITS = 12;
const STAR = 10;
const HASH = 11;

/**
 * One key of a Wiegand keypad, as the converter prints its burst: 4 bits
 * ("0101", or one hex digit "5": the key's code) or 8 bits ("10100101", or
 * two hex digits "A5": the code in the low nibble, its complement in the high
 * one). Codes 0-9 are the digits, 10 is "*", 11 is "#".
 */
export function decodeKeyBurst(line: string): { key: number } | { rejected: string } | null {
  let width: 4 | 8;
  let value: number;
  if (/^[01]{4}$|^[01]{8}$/.test(line)) {
    width = line.length as 4 | 8;
    value = Number.parseInt(line, 2);
  } else {
    const hex = /^(?:0x)?([0-9a-f]{1,2})$/i.exec(line)?.[1];
    if (hex === undefined) return null;
    width = hex.length === 1 ? 4 : 8;
    value = Number.parseInt(hex, 16);
  }
  const key = value & 0x0f;
  if (width === 8 && value >> 4 !== (~key & 0x0f)) return { rejected: '8-bit key burst: the high nibble is not the complement of the key' };
  if (key > HASH) return { rejected: `not a key code: ${key}` };
  return { key };
}

/**
 * A Wiegand keypad behind a Wiegand-to-serial converter: one key burst per
 * line (see decodeKeyBurst). Digits are collected; "#" hands them over as a
 * PIN, "*" clears them, and so does a pause of idleClearMs. A keypad with a
 * card reader in it sends its cards on the same wires: 26 and 34-bit frames
 * (bit strings) are read as cards. Emits 'cleared' with "star" or "idle" when
 * typed keys are dropped; never logs a digit.
 */
export class WiegandKeypadParser extends LineSplitter {
  private digits = '';
  /** More than MAX_PIN_DIGITS typed: the entry is refused on "#". */
  private overflow = false;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(private readonly idleClearMs = 10_000) {
    super();
  }

  protected parseLine(line: string): LineResult {
    if (/^[01]{26}$|^[01]{34}$/.test(line)) return decodeWiegandBits(line);
    const burst = decodeKeyBurst(line);
    if (burst === null) return { rejected: `not a key burst or a card frame (${line.length} characters)` };
    if ('rejected' in burst) return burst;
    return this.press(burst.key);
  }

  override _flush(callback: (error?: Error | null) => void): void {
    super._flush((error) => {
      this.clear();
      callback(error);
    });
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.clear();
    callback(error);
  }

  private press(key: number): LineResult {
    if (key === STAR) {
      const had = this.digits !== '' || this.overflow;
      this.clear();
      if (had) this.emit('cleared', 'star');
      return null;
    }
    if (key === HASH) {
      const { digits, overflow } = this;
      this.clear();
      if (digits === '' && !overflow) return null;
      return pinResult(digits, overflow);
    }
    if (this.digits.length >= MAX_PIN_DIGITS) this.overflow = true;
    else this.digits += String(key);
    this.restartIdleTimer();
    return null;
  }

  private restartIdleTimer(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      this.clear();
      this.emit('cleared', 'idle');
    }, this.idleClearMs);
    this.idleTimer.unref();
  }

  private clear(): void {
    this.digits = '';
    this.overflow = false;
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }
}

/** A keypad that sends each PIN as a line of digits (a trailing "#" is allowed). */
export class LineKeypadParser extends LineSplitter {
  protected parseLine(line: string): LineResult {
    const digits = line.endsWith('#') ? line.slice(0, -1) : line;
    if (!/^\d+$/.test(digits)) return { rejected: `not a PIN (${line.length} characters)` };
    return pinResult(digits, digits.length > MAX_PIN_DIGITS);
  }
}

/** A PIN credential, or why the digits are not one (the reason never holds a digit). */
export function pinResult(digits: string, overflow: boolean): LineResult {
  if (overflow || digits.length < MIN_PIN_DIGITS || digits.length > MAX_PIN_DIGITS) {
    return { rejected: `a PIN has ${MIN_PIN_DIGITS} to ${MAX_PIN_DIGITS} digits, ${overflow ? 'more' : digits.length} typed` };
  }
  return { credential: { kind: 'pin', pin: digits } };
}

export function openKeypadReader(
  config: Extract<ReaderConfig, { driver: 'keypad' }>,
  env: DeviceEnvironment,
  onCredential: CredentialListener,
): Promise<Reader> {
  const parser = config.input === 'line' ? new LineKeypadParser() : new WiegandKeypadParser(config.idleClearMs);
  parser.on('cleared', (why: string) => env.logger.debug(`reader keypad: entry cleared (${why === 'idle' ? `${config.idleClearMs} ms without a key` : '"*"'})`));
  return openParsedSerialReader(config, parser, env, onCredential);
}
