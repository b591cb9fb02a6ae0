import type { ContactConfig } from '../config.js';
import type { Contact, ContactListener, ContactState, DeviceEnvironment } from '../devices.js';
import { openSerialPort } from '../serial.js';

/** Longer runs without a line end are noise. */
const MAX_LINE_LENGTH = 64;

/** A line of a serial contact: OPEN or CLOSED (any case, surrounding blanks ignored); null for anything else. */
export function parseContactLine(line: string): ContactState | null {
  const word = line.trim().toUpperCase();
  if (word === 'OPEN') return 'open';
  if (word === 'CLOSED') return 'closed';
  return null;
}

/**
 * A door-position input that arrives as text on a serial line, one reading a
 * line (`OPEN` or `CLOSED`, CR, LF or CRLF): what a small microcontroller
 * next to the reed switch, or a test, sends.
 */
export async function openSerialContact(
  config: Extract<ContactConfig, { driver: 'serial' }>,
  env: DeviceEnvironment,
  onState: ContactListener,
): Promise<Contact> {
  const port = await openSerialPort(env.serialPortFactory, { path: config.port, baudRate: config.baudRate }, env.onLost);
  let pending = '';
  port.connection.on('data', (chunk: Buffer) => {
    // latin1 maps every byte to one character, so line noise cannot break decoding.
    const lines = (pending + chunk.toString('latin1')).split(/\r\n|\r|\n/);
    pending = lines.pop() ?? '';
    if (pending.length > MAX_LINE_LENGTH) pending = '';
    for (const line of lines) {
      if (line.trim() === '') continue;
      const state = parseContactLine(line);
      if (state === null) env.logger.warn(`contact serial: ignoring ${JSON.stringify(line.slice(0, 40))} (expected OPEN or CLOSED)`);
      else onState(state);
    }
  });
  return { driver: 'serial', close: () => port.close() };
}
