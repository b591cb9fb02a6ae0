import { cardIdFromBytes } from '../card-id.js';
import type { ReaderConfig } from '../config.js';
import type { CredentialListener, DeviceEnvironment, Reader } from '../devices.js';
import { LineSplitter } from './line-splitter.js';
import { openParsedSerialReader } from './parsed-input.js';

export type WiegandBits = 26 | 34;

export type WiegandResult = { card: string } | { rejected: string };

/**
 * Decodes a Wiegand frame given as a string of '0'/'1'. The first bit is even
 * parity over the first half of the data bits, the last bit odd parity over
 * the second half. The card id is the data bits without the parity bits:
 * 3 bytes for W26 (facility byte + 16-bit card number), 4 bytes for W34.
 */
export function decodeWiegandBits(bits: string): WiegandResult {
  if (!/^[01]+$/.test(bits) || (bits.length !== 26 && bits.length !== 34)) {
    return { rejected: `not a 26 or 34 bit Wiegand frame` };
  }
  const half = (bits.length - 2) / 2;
  const countOnes = (text: string) => [...text].filter((bit) => bit === '1').length;
  if (countOnes(bits.slice(0, half + 1)) % 2 !== 0) {
    return { rejected: `W${bits.length} even parity error` };
  }
  if (countOnes(bits.slice(half + 1)) % 2 !== 1) {
    return { rejected: `W${bits.length} odd parity error` };
  }
  const dataBits = bits.slice(1, -1);
  const bytes = Buffer.from(BigInt(`0b${dataBits}`).toString(16).padStart(dataBits.length / 4, '0'), 'hex');
  return { card: cardIdFromBytes(bytes) };
}

/**
 * Wiegand frames from a serial converter, one per line: either the bit string
 * ("10000000100000000000000010") or the whole frame as hex ("0x0246073" or
 * "0246073"), whose length in bits is the configured `hexBits`.
 */
export class WiegandParser extends LineSplitter {
  parityErrorCount = 0;

  constructor(private readonly hexBits: WiegandBits = 26) {
    super();
  }

  protected parseLine(line: string): WiegandResult {
    const result = this.decodeLine(line);
    if ('rejected' in result && result.rejected.includes('parity')) this.parityErrorCount += 1;
    return result;
  }

  private decodeLine(line: string): WiegandResult {
    if (/^[01]{26}$|^[01]{34}$/.test(line)) return decodeWiegandBits(line);
    const hex = /^(?:0x)?([0-9a-f]+)$/i.exec(line)?.[1];
    if (hex === undefined) return { rejected: `not a Wiegand frame: ${JSON.stringify(line.slice(0, 40))}` };
    const value = BigInt(`0x${hex}`);
    if (value >= 1n << BigInt(this.hexBits)) return { rejected: `hex frame wider than ${this.hexBits} bits` };
    return decodeWiegandBits(value.toString(2).padStart(this.hexBits, '0'));
  }
}

export function openWiegandReader(
  config: Extract<ReaderConfig, { driver: 'wiegand' }>,
  env: DeviceEnvironment,
  onCredential: CredentialListener,
): Promise<Reader> {
  return openParsedSerialReader(config, new WiegandParser(config.bits), env, onCredential);
}
