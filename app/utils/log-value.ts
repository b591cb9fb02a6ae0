// Values that come from outside (a mail subject built from a visitor's name,
// an MQTT client id) are written into log lines through logValue: quoted, with
// every control, line-break and format character escaped, so a value can
// never start a log line of its own or hide what follows it.

const UNSAFE = /[\u0000-\u001F\u007F-\u009F\u200B-\u200F\u2028-\u202E\u2060-\u2069\uFEFF"\\]/g;
const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "\\": "\\\\" };

/** `value` as one quoted, printable token for a log line ("Eve\r\nBcc: x" becomes "Eve\\r\\nBcc: x"). */
export function logValue(value: unknown): string {
  const text = String(value);
  return `"${text.replace(UNSAFE, (char) => NAMED[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`)}"`;
}

// What may not be stored as text (the text rule of app/schemas/fields.ts):
// controls, bidirectional and zero-width format characters, lone surrogates,
// and in a single-line value its line breaks.
const NOT_TEXT = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const NOT_SINGLE_LINE = /[\r\n\u2028\u2029]/g;

/**
 * `value` with what the text rule refuses written out visibly (`\u202e`,
 * `\r\n`), for text kept where it is read later (the audit trail): a
 * value from outside can never reorder, hide or break the line it is shown in.
 */
export function printableText(value: string, { multiline = false } = {}): string {
  const escape = (char: string) => NAMED[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
  const text = value.replace(NOT_TEXT, escape);
  return multiline ? text : text.replace(NOT_SINGLE_LINE, escape);
}
