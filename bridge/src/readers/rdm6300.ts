import { Transform, type TransformCallback } from 'node:stream';
import { cardIdFromBytes } from '../card-id.js';
import type { ReaderConfig } from '../config.js';
import type { CredentialListener, DeviceEnvironment, Reader } from '../devices.js';
import { openParsedSerialReader } from './parsed-input.js';

const STX = 0x02;
const ETX = 0x03;
/** STX + 10 hex digits (version byte + 4-byte tag) + 2 hex digits checksum + ETX. */
const FRAME_LENGTH = 14;

/**
 * RDM6300-style 125 kHz reader frames (9600 8N1). The card id is the 4-byte
 * tag without the version byte: "004E2B4E", the number printed in decimal on
 * most EM4100 cards and fobs (0005122894).
 *
 * Tolerates frames split across chunks, glued together and noise between them;
 * frames with a wrong checksum are dropped and counted.
 */
export class Rdm6300Parser extends Transform {
  badChecksumCount = 0;
  malformedFrameCount = 0;
  private buffer = Buffer.alloc(0);

  constructor() {
    super({ readableObjectMode: true });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const start = this.buffer.indexOf(STX);
      if (start < 0) {
        this.buffer = Buffer.alloc(0);
        break;
      }
      if (this.buffer.length - start < FRAME_LENGTH) {
        this.buffer = this.buffer.subarray(start);
        break;
      }
      const frame = this.buffer.subarray(start, start + FRAME_LENGTH);
      const ascii = frame.subarray(1, FRAME_LENGTH - 1).toString('latin1');
      if (frame[FRAME_LENGTH - 1] !== ETX || !/^[0-9A-Fa-f]{12}$/.test(ascii)) {
        // A stray STX in noise: resynchronise on the next one.
        this.malformedFrameCount += 1;
        this.buffer = this.buffer.subarray(start + 1);
        continue;
      }
      this.buffer = this.buffer.subarray(start + FRAME_LENGTH);
      const bytes = Buffer.from(ascii.slice(0, 10), 'hex');
      const checksum = Number.parseInt(ascii.slice(10), 16);
      const computed = bytes.reduce((xor, byte) => xor ^ byte, 0);
      if (checksum !== computed) {
        this.badChecksumCount += 1;
        this.emit('reject', `bad checksum ${ascii.slice(10)} (computed ${computed.toString(16).padStart(2, '0')})`);
        continue;
      }
      this.push(cardIdFromBytes(bytes.subarray(1)));
    }
    callback();
  }
}

export function openRdm6300Reader(
  config: Extract<ReaderConfig, { driver: 'rdm6300' }>,
  env: DeviceEnvironment,
  onCredential: CredentialListener,
): Promise<Reader> {
  return openParsedSerialReader(config, new Rdm6300Parser(), env, onCredential);
}
