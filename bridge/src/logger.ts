export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

const LEVEL_RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * Logs one line per message to stderr. Under systemd (JOURNAL_STREAM set) the
 * journal adds its own timestamps, so we leave ours out there.
 */
export function createConsoleLogger(minLevel: LogLevel = 'info', write: (line: string) => void = writeStderr): Logger {
  const withTimestamp = process.env.JOURNAL_STREAM === undefined;
  const log = (level: LogLevel) => (message: string) => {
    if (LEVEL_RANK[level] < LEVEL_RANK[minLevel]) return;
    const prefix = withTimestamp ? `${new Date().toISOString()} ` : '';
    write(`${prefix}${level.toUpperCase().padEnd(5)} ${message}`);
  };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

function writeStderr(line: string): void {
  process.stderr.write(`${line}\n`);
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
