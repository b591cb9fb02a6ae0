export const LCD_COLUMNS = 16;

/** Characters the SerLCD firmware reads as commands ('|' = 0x7C, the setting prefix). */
const SERLCD_RESERVED: Record<string, string> = { '|': '!' };
const DROPPED = new Set(['¿', '¡']);

/**
 * Turns any text into what a HD44780 16x2 LCD can show: accents removed
 * (á→a, ñ→n, ü→u, º→o), ¿ and ¡ dropped, any other non-ASCII character and
 * control character shown as '?', cut to 16 columns.
 */
export function toLcdLine(text: string): string {
  let line = '';
  for (const char of text.normalize('NFKD')) {
    if (/\p{M}/u.test(char) || DROPPED.has(char)) continue;
    const code = char.codePointAt(0) ?? 0;
    if (code >= 0x20 && code <= 0x7e) line += SERLCD_RESERVED[char] ?? char;
    else if (char === '\t') line += ' ';
    else line += '?';
    if (line.length >= LCD_COLUMNS) break;
  }
  return line.slice(0, LCD_COLUMNS);
}
