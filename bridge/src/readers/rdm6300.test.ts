import { describe, expect, it } from 'vitest';
import { Rdm6300Parser } from './rdm6300.js';

const FRAME_004E2B4E = Buffer.from([0x02, 0x30, 0x31, 0x30, 0x30, 0x34, 0x45, 0x32, 0x42, 0x34, 0x45, 0x32, 0x41, 0x03]);
const FRAME_0012D687 = Buffer.from([0x02, 0x30, 0x30, 0x30, 0x30, 0x31, 0x32, 0x44, 0x36, 0x38, 0x37, 0x34, 0x33, 0x03]);

function feed(parser: Rdm6300Parser, ...chunks: Buffer[]): string[] {
  const cards: string[] = [];
  parser.on('data', (card: string) => cards.push(card));
  for (const chunk of chunks) parser.write(chunk);
  return cards;
}

describe('Rdm6300Parser', () => {
  it('decodes the test vectors to the 4-byte tag, without the version byte', () => {
    expect(feed(new Rdm6300Parser(), FRAME_004E2B4E)).toEqual(['004E2B4E']);
    expect(feed(new Rdm6300Parser(), FRAME_0012D687)).toEqual(['0012D687']);
  });

  it('rejects and counts bad checksums', () => {
    const parser = new Rdm6300Parser();
    const corrupt = Buffer.from(FRAME_004E2B4E);
    corrupt[12] = 0x42; // checksum "2B" instead of "2A"
    const reasons: string[] = [];
    parser.on('reject', (reason: string) => reasons.push(reason));
    expect(feed(parser, corrupt, corrupt, FRAME_0012D687)).toEqual(['0012D687']);
    expect(parser.badChecksumCount).toBe(2);
    expect(reasons[0]).toMatch(/checksum/);
  });

  it('reassembles frames split across chunks, byte by byte', () => {
    const chunks = [...FRAME_004E2B4E].map((byte) => Buffer.from([byte]));
    expect(feed(new Rdm6300Parser(), ...chunks)).toEqual(['004E2B4E']);
    expect(feed(new Rdm6300Parser(), FRAME_0012D687.subarray(0, 5), FRAME_0012D687.subarray(5))).toEqual(['0012D687']);
  });

  it('separates glued frames', () => {
    expect(feed(new Rdm6300Parser(), Buffer.concat([FRAME_004E2B4E, FRAME_0012D687, FRAME_004E2B4E]))).toEqual([
      '004E2B4E',
      '0012D687',
      '004E2B4E',
    ]);
  });

  it('skips noise between frames, including a stray STX', () => {
    const parser = new Rdm6300Parser();
    const noise = Buffer.from([0xff, 0x00, 0x0d, 0x0a, 0x02, 0x41, 0x03, 0x30]);
    const cards = feed(parser, Buffer.concat([noise, FRAME_004E2B4E, Buffer.from('\r\n'), noise.subarray(0, 5)]), Buffer.concat([noise.subarray(5), FRAME_0012D687]));
    expect(cards).toEqual(['004E2B4E', '0012D687']);
    expect(parser.badChecksumCount).toBe(0);
    expect(parser.malformedFrameCount).toBeGreaterThan(0);
  });

  it('accepts lower-case hex digits', () => {
    const lower = Buffer.concat([Buffer.from([0x02]), Buffer.from('01004e2b4e2a'), Buffer.from([0x03])]);
    expect(feed(new Rdm6300Parser(), lower)).toEqual(['004E2B4E']);
  });
});
