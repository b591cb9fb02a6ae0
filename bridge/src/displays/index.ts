import type { DisplayConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { SerialPortFactory } from '../serial.js';
import { createConsoleDisplay } from './console.js';
import { openSerLcd } from './serlcd.js';

export interface Display {
  readonly driver: DisplayConfig['driver'];
  /** Shows two lines; drivers fit the text to the 16x2 screen themselves. */
  show(line1: string, line2: string): Promise<void>;
  close(): Promise<void>;
}

export async function openDisplay(
  config: DisplayConfig,
  env: { serialPortFactory: SerialPortFactory; logger: Logger; onLost: (error: Error) => void },
): Promise<Display> {
  if (config.driver === 'console') return createConsoleDisplay(env.logger);
  return openSerLcd(config, env.serialPortFactory, env.logger, env.onLost);
}
