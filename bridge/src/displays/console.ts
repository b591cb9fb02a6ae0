import type { DisplayConfig } from '../config.js';
import type { DeviceEnvironment, Display } from '../devices.js';
import { LCD_COLUMNS, toLcdLine } from './lcd-text.js';

/** Development display: logs what a 16x2 LCD would show. */
export async function openConsoleDisplay(
  config: Extract<DisplayConfig, { driver: 'console' }>,
  { logger }: DeviceEnvironment,
): Promise<Display> {
  const pad = (text: string) => toLcdLine(text).padEnd(LCD_COLUMNS, ' ');
  return {
    driver: config.driver,
    show: async (line1, line2) => logger.info(`display [${pad(line1)}] [${pad(line2)}]`),
    close: async () => {},
  };
}
