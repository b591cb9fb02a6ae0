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
