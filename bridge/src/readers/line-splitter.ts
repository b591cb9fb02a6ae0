import { Transform, type TransformCallback } from 'node:stream';
import type { Credential } from '../devices.js';

/** Longer runs without a line end are noise, not a card. */
const MAX_LINE_LENGTH = 128;

/**
 * What a line gave: a canonical card id, another credential (a PIN, a QR
 * token), a reason it was refused, or nothing yet (a keypad's key).
 */
export type LineResult = { card: string } | { credential: Credential } | { rejected: string } | null;

/**
 * Base of the text-based parsers: splits bytes into lines (CR, LF or CRLF),
 * whatever the chunking, and hands each non-empty line to parseLine. Emits
 * canonical card ids (strings), other credentials (objects) and 'reject'
 * events with a reason.
 */
export abstract class LineSplitter extends Transform {
  rejectedCount = 0;
  private pending = '';

  constructor() {
    super({ readableObjectMode: true });
  }

  /** Returns the canonical card id, or a reason the line is not one. */
  protected abstract parseLine(line: string): LineResult;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    // latin1 maps every byte to one character, so line noise cannot break decoding.
    const lines = (this.pending + chunk.toString('latin1')).split(/\r\n|\r|\n/);
    this.pending = lines.pop() ?? '';
    for (const line of lines) this.handleLine(line);
    if (this.pending.length > MAX_LINE_LENGTH) {
      this.reject(`line longer than ${MAX_LINE_LENGTH} characters`);
      this.pending = '';
    }
    callback();
  }

  override _flush(callback: TransformCallback): void {
    this.handleLine(this.pending);
    this.pending = '';
    callback();
  }

  private handleLine(rawLine: string): void {
    const line = rawLine.trim();
    if (line === '') return;
    const result = this.parseLine(line);
    if (result === null) return;
    if ('card' in result) this.push(result.card);
    else if ('credential' in result) this.push(result.credential);
    else this.reject(result.rejected);
  }

  protected reject(reason: string): void {
    this.rejectedCount += 1;
    this.emit('reject', reason);
  }
}
