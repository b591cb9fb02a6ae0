import type { Readable, Transform } from 'node:stream';
import type { ReaderConfig } from '../config.js';
import type { Credential, CredentialListener, DeviceEnvironment, Reader } from '../devices.js';
import { openSerialPort } from '../serial.js';

/**
 * A reader whose input only flows one way, into a parser: a Transform that
 * pushes canonical card ids (strings) or other credentials (PINs, QR tokens,
 * as Credential objects) and emits 'reject' with a reason (logged). The
 * drivers of such readers are this plus their parser; a two-way protocol
 * (OSDP) writes its own open function on openSerialPort.
 */
export function readParsed(
  driver: ReaderConfig['driver'],
  input: Readable,
  parser: Transform,
  env: Pick<DeviceEnvironment, 'logger'>,
  onCredential: CredentialListener,
  release: () => Promise<void>,
): Reader {
  parser.on('reject', (reason: string) => env.logger.warn(`reader ${driver}: rejected input: ${reason}`));
  parser.on('data', (read: string | Credential) => onCredential(typeof read === 'string' ? { kind: 'card', card: read } : read));
  input.pipe(parser);
  return {
    driver,
    close: async () => {
      input.unpipe(parser);
      // Without a flush: a half-read line, or a keypad's digits not yet submitted, is dropped.
      parser.destroy();
      await release();
    },
  };
}

/** Opens the reader's serial port and reads it through the parser; closing the reader closes the port. */
export async function openParsedSerialReader(
  config: { driver: ReaderConfig['driver']; port: string; baudRate: number },
  parser: Transform,
  env: DeviceEnvironment,
  onCredential: CredentialListener,
): Promise<Reader> {
  const port = await openSerialPort(env.serialPortFactory, { path: config.port, baudRate: config.baudRate }, env.onLost);
  return readParsed(config.driver, port.connection, parser, env, onCredential, () => port.close());
}
