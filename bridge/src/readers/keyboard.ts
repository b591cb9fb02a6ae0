import type { ReaderConfig } from '../config.js';
import type { CredentialListener, DeviceEnvironment, Reader } from '../devices.js';
import { pinResult } from './keypad.js';
import { LineCardParser } from './line.js';
import type { LineResult } from './line-splitter.js';
import { readParsed } from './parsed-input.js';
import { canonicalQrToken } from './qr.js';

/**
 * What is typed at the console: a PIN ends in "#" (as on a keypad: "482913#"),
 * a QR token starts with "LC1-", anything else is a card id.
 */
export class KeyboardParser extends LineCardParser {
  protected override parseLine(line: string): LineResult {
    if (line.endsWith('#')) {
      const digits = line.slice(0, -1);
      return /^\d+$/.test(digits) ? pinResult(digits, false) : { rejected: 'a PIN is digits followed by "#"' };
    }
    if (/^LC1-/i.test(line)) {
      const qr = canonicalQrToken(line);
      return qr === null ? { rejected: "not a key's QR code" } : { credential: { kind: 'qr', qr } };
    }
    return super.parseLine(line);
  }
}

/** Card ids, PINs and QR tokens typed on standard input, one per line (development, simulate mode). */
export async function openKeyboardReader(
  config: Extract<ReaderConfig, { driver: 'keyboard' }>,
  env: DeviceEnvironment,
  onCredential: CredentialListener,
): Promise<Reader> {
  return readParsed(config.driver, env.stdin, new KeyboardParser(config.format), env, onCredential, async () => {
    env.stdin.pause();
  });
}
