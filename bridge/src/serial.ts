import { SerialPort, type SerialPortMock } from 'serialport';

/** The part of a serialport stream the drivers use; SerialPort and SerialPortMock both fit. */
export type SerialConnection = SerialPort | SerialPortMock;

export interface SerialPortOptions {
  path: string;
  baudRate: number;
}

/**
 * Creates a port without opening it (autoOpen false). Tests pass a factory
 * that builds SerialPortMock instances.
 */
export type SerialPortFactory = (options: SerialPortOptions) => SerialConnection;

export const createSystemSerialPort: SerialPortFactory = (options) =>
  new SerialPort({ path: options.path, baudRate: options.baudRate, autoOpen: false });

export interface OpenedSerialPort {
  readonly connection: SerialConnection;
  write(bytes: Buffer): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens a port (8N1 at the given baud rate). onLost is called once if the
 * port closes or fails without us asking (e.g. a USB adapter unplugged).
 */
export async function openSerialPort(
  factory: SerialPortFactory,
  options: SerialPortOptions,
  onLost: (error: Error) => void,
): Promise<OpenedSerialPort> {
  const connection = factory(options);
  await new Promise<void>((resolve, reject) => {
    connection.open((error) => {
      if (error) reject(new Error(`cannot open serial port ${options.path}: ${error.message}`));
      else resolve();
    });
  });
  let closing = false;
  let lost = false;
  const reportLost = (error: Error) => {
    if (closing || lost) return;
    lost = true;
    onLost(error);
  };
  connection.on('error', (error: Error) => reportLost(new Error(`serial port ${options.path}: ${error.message}`)));
  connection.on('close', () => reportLost(new Error(`serial port ${options.path} closed unexpectedly`)));

  return {
    connection,
    write: (bytes) =>
      new Promise<void>((resolve, reject) => {
        connection.write(bytes, (error) => {
          if (error) {
            reject(error);
            return;
          }
          connection.drain((drainError) => (drainError ? reject(drainError) : resolve()));
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        if (!connection.isOpen) {
          resolve();
          return;
        }
        connection.close(() => resolve());
      }),
  };
}
