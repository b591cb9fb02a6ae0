import { describe, expect, it } from 'vitest';
import { canonicalCardId, cardIdFromBytes, isCanonicalCardId } from './card-id.js';

describe('card ids', () => {
  it('renders bytes as upper-case hex, two characters per byte', () => {
    expect(cardIdFromBytes(Uint8Array.from([0x00, 0x4e, 0x2b, 0x4e]))).toBe('004E2B4E');
  });

  it('canonicalises hex and decimal text', () => {
    expect(canonicalCardId(' 004e2b4e ')).toBe('004E2B4E');
    expect(canonicalCardId('0x12d687')).toBe('12D687');
    expect(canonicalCardId('4-a2-1b-7c')).toBe('04A21B7C');
    expect(canonicalCardId('5122894')).toBe('004E2B4E');
    expect(canonicalCardId('0')).toBe('00000000');
  });

  it('refuses what is not a card id', () => {
    for (const text of ['', '   ', 'hello', '12 34 zz', '0x', '-1', 'F'.repeat(33), '9'.repeat(60)]) {
      expect(canonicalCardId(text), text).toBeNull();
    }
    expect(canonicalCardId('0x12', 'decimal')).toBeNull();
  });

  it('recognises canonical ids', () => {
    expect(isCanonicalCardId('004E2B4E')).toBe(true);
    expect(isCanonicalCardId('004e2b4e')).toBe(false);
    expect(isCanonicalCardId('4E2B4E0')).toBe(false);
  });
});
