// Card numbers (docs/mqtt.md, "Card ids"): stored and shown as upper-case hex,
// two characters per byte, most significant byte first ("004E2B4E").
// Browser-safe.

/** Longest card id, in bytes (ISO 14443 UIDs are 4, 7 or 10 bytes). */
const MAX_CARD_BYTES = 16;

/**
 * The canonical card id. Bridges send it canonical already; the app also
 * accepts lower case, a 0x prefix, bytes separated by ':', '-' or ' ' and an
 * odd number of digits (a leading zero is implied). Null when the text is not
 * a hex card id.
 */
export function canonicalCardId(text: string): string | null {
  let digits = text.trim().replace(/^0x/i, "");
  if (/^[0-9a-f]{1,2}(?:[:\- ][0-9a-f]{1,2})+$/i.test(digits)) {
    digits = digits
      .split(/[:\- ]/)
      .map((byte) => byte.padStart(2, "0"))
      .join("");
  }
  if (!/^[0-9a-f]+$/i.test(digits)) return null;
  if (digits.length % 2 === 1) digits = `0${digits}`;
  if (digits.length / 2 > MAX_CARD_BYTES) return null;
  return digits.toUpperCase();
}

/**
 * A search for part of a card number as upper-case hex digits ("" = no
 * search), or null when the text cannot be part of any card number.
 */
export function normalizeCardNumberSearch(text: string | undefined): string | null {
  const digits = (text ?? "").trim().replace(/^0x/i, "").replace(/[\s:-]/g, "").toUpperCase();
  return /^[0-9A-F]*$/.test(digits) ? digits : null;
}

