import type { ReaderConfig } from '../config.js';
import type { CredentialListener, DeviceEnvironment, Reader } from '../devices.js';
import { LineSplitter, type LineResult } from './line-splitter.js';
import { openParsedSerialReader } from './parsed-input.js';

/**
 * A key's QR token: "LC1-" and the base32 (RFC 4648, no padding) of at least
 * 128 random bits, i.e. 26 characters or more; scanners may send it in lower
 * case, it is handed over in upper case.
 */
const QR_TOKEN = /^LC1-[A-Z2-7]{26,100}$/;

/** The canonical QR token of a line, or null when the line is not one. */
export function canonicalQrToken(line: string): string | null {
  const token = line.trim().toUpperCase();
  return QR_TOKEN.test(token) ? token : null;
}

/** A serial QR scanner (or a keyboard-wedge scanner in serial mode): one token per line. */
export class QrLineParser extends LineSplitter {
  protected parseLine(line: string): LineResult {
    const qr = canonicalQrToken(line);
    // Never the line itself in the reason: it may be somebody's token, misread.
    return qr === null ? { rejected: `not a key's QR code (${line.length} characters)` } : { credential: { kind: 'qr', qr } };
  }
}

export function openQrReader(
  config: Extract<ReaderConfig, { driver: 'qr' }>,
  env: DeviceEnvironment,
  onCredential: CredentialListener,
): Promise<Reader> {
  return openParsedSerialReader(config, new QrLineParser(), env, onCredential);
}
