import { describe, expect, it } from 'vitest';
import { decodeWiegandBits, WiegandParser } from './wiegand.js';

function feed(parser: WiegandParser, ...chunks: string[]): string[] {
  const cards: string[] = [];
  parser.on('data', (card: string) => cards.push(card));
  for (const chunk of chunks) parser.write(Buffer.from(chunk, 'latin1'));
  return cards;
}

describe('decodeWiegandBits', () => {
  it('W26 facility 1, card 1 → the 24 data bits as 3 bytes', () => {
    expect(decodeWiegandBits('10000000100000000000000010')).toEqual({ card: '010001' });
  });

  it('W26 facility 18, card 12345 (0x0246073) → "123039"', () => {
    const bits = (0x0246073).toString(2).padStart(26, '0');
    expect(decodeWiegandBits(bits)).toEqual({ card: '123039' });
  });

  it('W34 data 0x12345678 (0x22468ACF1) → "12345678"', () => {
    const bits = (0x22468acf1).toString(2).padStart(34, '0');
    expect(decodeWiegandBits(bits)).toEqual({ card: '12345678' });
  });

  it('rejects a wrong leading (even) parity bit', () => {
    expect(decodeWiegandBits('00000000100000000000000010')).toEqual({ rejected: 'W26 even parity error' });
  });

  it('rejects a wrong trailing (odd) parity bit', () => {
    expect(decodeWiegandBits('10000000100000000000000011')).toEqual({ rejected: 'W26 odd parity error' });
  });

  it('rejects a flipped data bit in either half, W26 and W34', () => {
    const w26 = '10000000100000000000000010';
    const flip = (bits: string, index: number) => bits.slice(0, index) + (bits[index] === '1' ? '0' : '1') + bits.slice(index + 1);
    expect(decodeWiegandBits(flip(w26, 3))).toEqual({ rejected: 'W26 even parity error' });
    expect(decodeWiegandBits(flip(w26, 20))).toEqual({ rejected: 'W26 odd parity error' });
    const w34 = (0x22468acf1).toString(2).padStart(34, '0');
    expect(decodeWiegandBits(flip(w34, 5))).toEqual({ rejected: 'W34 even parity error' });
    expect(decodeWiegandBits(flip(w34, 30))).toEqual({ rejected: 'W34 odd parity error' });
  });
});

describe('WiegandParser', () => {
  it('reads bit strings and hex lines (26-bit hex by default)', () => {
    expect(feed(new WiegandParser(), '10000000100000000000000010\r\n', '0x0246073\n', '0246073\n')).toEqual([
      '010001',
      '123039',
      '123039',
    ]);
  });

  it('reads 34-bit hex when configured, 34-bit bit strings always', () => {
    const bits34 = (0x22468acf1).toString(2).padStart(34, '0');
    expect(feed(new WiegandParser(34), '22468ACF1\n', `${bits34}\n`)).toEqual(['12345678', '12345678']);
    expect(feed(new WiegandParser(26), `${bits34}\n`)).toEqual(['12345678']);
  });

  it('counts and drops parity failures', () => {
    const parser = new WiegandParser();
    expect(feed(parser, '00000000100000000000000010\n', '0x0246072\n', '10000000100000000000000010\n')).toEqual(['010001']);
    expect(parser.parityErrorCount).toBe(2);
  });

  it('tolerates split and glued lines and noise', () => {
    const parser = new WiegandParser();
    const cards = feed(parser, 'garbage\r\n1000000010000', '0000000000010\r\n0x0246073\n\x00\xff\n', '0x1FFFFFFF\n');
    expect(cards).toEqual(['010001', '123039']);
    expect(parser.rejectedCount).toBe(3); // "garbage", the noise line, the too-wide hex
  });
});
