/**
 * Canonical card id: upper-case hex, two characters per byte, most significant
 * byte first (e.g. "004E2B4E"). Every reader driver yields this form; the app
 * registers cards in the same form.
 */

/** Longest card id accepted, in bytes (ISO 14443 UIDs are 4, 7 or 10 bytes). */
export const MAX_CARD_ID_BYTES = 16;

/**
 * Decimal input is widened to at least this many bytes, so that a reader
 * printing the 10-digit decimal of an EM4100 tag ("0005122894") yields the
 * same id as an RDM6300 reading the same tag ("004E2B4E").
 */
export const MIN_DECIMAL_CARD_ID_BYTES = 4;

export type CardTextFormat = 'auto' | 'hex' | 'decimal';

export function cardIdFromBytes(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex').toUpperCase();
}

export function isCanonicalCardId(text: string): boolean {
  return /^(?:[0-9A-F]{2}){1,16}$/.test(text);
}

/**
 * Canonicalises a card id received as text (line readers, keyboard wedges, the
 * simulator's keyboard). Returns null when the text is not a card id.
 *
 * "auto": digits only → decimal; anything else (hex letters, a 0x prefix,
 * bytes separated by ':', '-' or ' ') → hex. Readers that print hex ids made of
 * digits only need format "hex".
 */
export function canonicalCardId(text: string, format: CardTextFormat = 'auto'): string | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const digitsOnly = /^[0-9]+$/.test(trimmed);
  if (format === 'decimal' || (format === 'auto' && digitsOnly)) {
    return digitsOnly ? fromDecimal(trimmed) : null;
  }
  return fromHex(trimmed);
}

function fromHex(text: string): string | null {
  let digits = text.replace(/^0x/i, '');
  if (/^[0-9a-f]{1,2}(?:[:\- ][0-9a-f]{1,2})+$/i.test(digits)) {
    digits = digits
      .split(/[:\- ]/)
      .map((byte) => byte.padStart(2, '0'))
      .join('');
  }
  if (!/^[0-9a-f]+$/i.test(digits)) return null;
  if (digits.length % 2 === 1) digits = `0${digits}`;
  if (digits.length / 2 > MAX_CARD_ID_BYTES) return null;
  return digits.toUpperCase();
}

function fromDecimal(text: string): string | null {
  let hex = BigInt(text).toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  hex = hex.padStart(MIN_DECIMAL_CARD_ID_BYTES * 2, '0');
  if (hex.length / 2 > MAX_CARD_ID_BYTES) return null;
  return hex.toUpperCase();
}
