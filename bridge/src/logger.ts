export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

const LEVEL_RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** sd-daemon(3) prefixes: the journal reads them as the line's priority (journalctl -p). */
const JOURNAL_PRIORITY: Record<LogLevel, string> = { debug: '<7>', info: '<6>', warn: '<4>', error: '<3>' };

/**
 * Logs one line per message to stderr. Under systemd (JOURNAL_STREAM set) the
 * journal adds its own timestamps, so ours are replaced by a priority prefix.
 */
export function createConsoleLogger(
  minLevel: LogLevel = 'info',
  write: (line: string) => void = writeStderr,
  underJournal: boolean = process.env.JOURNAL_STREAM !== undefined,
): Logger {
  const log = (level: LogLevel) => (message: string) => {
    if (LEVEL_RANK[level] < LEVEL_RANK[minLevel]) return;
    const prefix = underJournal ? JOURNAL_PRIORITY[level] : `${new Date().toISOString()} `;
    write(`${prefix}${level.toUpperCase().padEnd(5)} ${maskKeys(message)}`);
  };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

/**
 * A PIN or a QR token never reaches the log in clear, whatever line it slipped
 * into: a message's `"pin"` and `"qr"` fields and anything shaped like a QR
 * token are masked. (The swipe code already logs them as "PIN ****".)
 */
export function maskKeys(message: string): string {
  return message
    .replace(/("(?:pin|qr)"\s*:\s*)"[^"]*"/g, '$1"***"')
    .replace(/\bLC1-[A-Za-z2-7]+/gi, 'LC1-****');
}

function writeStderr(line: string): void {
  process.stderr.write(`${line}\n`);
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
