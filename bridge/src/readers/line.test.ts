import { describe, expect, it } from 'vitest';
import { LineCardParser } from './line.js';

function feed(parser: LineCardParser, ...chunks: string[]): string[] {
  const cards: string[] = [];
  parser.on('data', (card: string) => cards.push(card));
  for (const chunk of chunks) parser.write(Buffer.from(chunk, 'latin1'));
  return cards;
}

describe('LineCardParser', () => {
  it('reads hex ids in their usual spellings', () => {
    expect(feed(new LineCardParser(), '004e2b4e\r\n', '0x0012D687\n', '04:A2:1B:7C:3D:5E:80\n', 'ABC\n')).toEqual([
      '004E2B4E',
      '0012D687',
      '04A21B7C3D5E80',
      '0ABC',
    ]);
  });

  it('converts decimal ids to hex bytes, at least 4 bytes', () => {
    expect(feed(new LineCardParser(), '0005122894\n', '1234567\n', '12345678901234\n')).toEqual([
      '004E2B4E',
      '0012D687',
      '0B3A73CE2FF2',
    ]);
  });

  it('honours a forced format', () => {
    expect(feed(new LineCardParser('hex'), '12345678\n')).toEqual(['12345678']);
    expect(feed(new LineCardParser('decimal'), '12345678\n', '0x12\n')).toEqual(['00BC614E']);
  });

  it('tolerates split and glued lines, blank lines and noise', () => {
    const parser = new LineCardParser();
    const cards = feed(parser, '004E', '2B4E\r', '\n\n0012D687\r0005122894\n', 'not a card\n\x01\x02\n');
    expect(cards).toEqual(['004E2B4E', '0012D687', '004E2B4E']);
    expect(parser.rejectedCount).toBe(2);
  });

  it('drops an endless line without a line end', () => {
    const parser = new LineCardParser();
    expect(feed(parser, 'F'.repeat(300), '\n004E2B4E\n')).toEqual(['004E2B4E']);
    expect(parser.rejectedCount).toBeGreaterThanOrEqual(1);
  });
});
