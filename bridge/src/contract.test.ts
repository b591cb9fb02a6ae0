import { describe, expect, it } from 'vitest';
import { MAX_RECEIPT_IDS, receiptSchema } from './contract.js';

const names = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix}-${index}`);
const valid = (receipt: unknown) => receiptSchema.safeParse(receipt).success;

describe('receipt schema', () => {
  it('accepts ids, swipes or both, up to MAX_RECEIPT_IDS in all', () => {
    expect(valid({ ids: ['a'] })).toBe(true);
    expect(valid({ swipes: ['a'] })).toBe(true);
    expect(valid({ ids: ['a'], swipes: ['a'] })).toBe(true);
    expect(valid({ ids: names('e', MAX_RECEIPT_IDS) })).toBe(true);
    expect(valid({ swipes: names('s', MAX_RECEIPT_IDS) })).toBe(true);
    expect(valid({ ids: names('e', 250), swipes: names('s', MAX_RECEIPT_IDS - 250) })).toBe(true);
    expect(valid({ ids: ['x'.repeat(64)] })).toBe(true);
  });

  it('refuses a receipt with neither, an empty list, more than MAX_RECEIPT_IDS ids in all, or ids that are not 1..64 characters', () => {
    expect(valid({})).toBe(false);
    expect(valid({ ids: [] })).toBe(false);
    expect(valid({ swipes: [] })).toBe(false);
    expect(valid({ ids: [], swipes: ['a'] })).toBe(false);
    expect(valid({ ids: names('e', MAX_RECEIPT_IDS + 1) })).toBe(false);
    expect(valid({ swipes: names('s', MAX_RECEIPT_IDS + 1) })).toBe(false);
    expect(valid({ ids: names('e', 250), swipes: names('s', MAX_RECEIPT_IDS - 249) })).toBe(false);
    expect(valid({ ids: [''] })).toBe(false);
    expect(valid({ swipes: ['x'.repeat(65)] })).toBe(false);
    expect(valid({ ids: 'a' })).toBe(false);
  });
});
