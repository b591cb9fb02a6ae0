import type { Logger } from '../logger.js';
import type { Display } from './index.js';
import { LCD_COLUMNS, toLcdLine } from './lcd-text.js';

/** Development display: logs what a 16x2 LCD would show. */
export function createConsoleDisplay(logger: Logger): Display {
  const pad = (text: string) => toLcdLine(text).padEnd(LCD_COLUMNS, ' ');
  return {
    driver: 'console',
    show: async (line1, line2) => logger.info(`display [${pad(line1)}] [${pad(line2)}]`),
    close: async () => {},
  };
}
