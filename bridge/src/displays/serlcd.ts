import type { DisplayConfig } from '../config.js';
import type { DeviceEnvironment, Display } from '../devices.js';
import { openSerialPort } from '../serial.js';
import { LCD_COLUMNS, toLcdLine } from './lcd-text.js';

/** SparkFun SerLCD (OpenLCD) command set. */
export const SERLCD_CLEAR = Buffer.from([0x7c, 0x2d]);
const HD44780_COMMAND = 0xfe;
const SET_DDRAM_ADDRESS = 0x80;
const LINE_ADDRESSES = [0x00, 0x40];

/**
 * Bytes that write both lines in full (padded with spaces), so no clear is
 * needed between messages and the display does not flicker.
 */
export function serlcdFrame(line1: string, line2: string): Buffer {
  const parts: Buffer[] = [];
  [line1, line2].forEach((text, index) => {
    parts.push(Buffer.from([HD44780_COMMAND, SET_DDRAM_ADDRESS | (LINE_ADDRESSES[index] ?? 0)]));
    parts.push(Buffer.from(toLcdLine(text).padEnd(LCD_COLUMNS, ' '), 'latin1'));
  });
  return Buffer.concat(parts);
}

export async function openSerLcd(config: Extract<DisplayConfig, { driver: 'serlcd' }>, env: DeviceEnvironment): Promise<Display> {
  const port = await openSerialPort(env.serialPortFactory, { path: config.port, baudRate: config.baudRate }, env.onLost);
  await port.write(SERLCD_CLEAR);
  env.logger.debug(`display serlcd on ${config.port}`);
  return {
    driver: 'serlcd',
    show: (line1, line2) => port.write(serlcdFrame(line1, line2)),
    close: () => port.close(),
  };
}
