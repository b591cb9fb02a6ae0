import { SerialPortMock } from 'serialport';
import type { SerialPortFactory } from '../serial.js';

/**
 * Mock serial ports for the bridge: create() registers a port path, the
 * factory hands the bridge SerialPortMock instances, and the test feeds reader
 * bytes (emit) and reads what the bridge wrote (written).
 */
export class MockSerialPorts {
  private readonly opened = new Map<string, SerialPortMock>();

  readonly factory: SerialPortFactory = (options) => {
    const port = new SerialPortMock({ path: options.path, baudRate: options.baudRate, autoOpen: false });
    this.opened.set(options.path, port);
    return port;
  };

  create(...paths: string[]): void {
    for (const path of paths) SerialPortMock.binding.createPort(path, { echo: false, record: true });
  }

  emit(path: string, data: Buffer | string): void {
    const binding = this.opened.get(path)?.port;
    if (binding === undefined) throw new Error(`${path} is not open`);
    binding.emitData(data);
  }

  /** Closes the port under the bridge's feet, like an unplugged USB adapter. */
  unplug(path: string): void {
    this.opened.get(path)?.close();
  }

  /** Everything the bridge wrote to the port since it was last opened. */
  written(path: string): Buffer {
    return this.opened.get(path)?.port?.recording ?? Buffer.alloc(0);
  }

  /** Written bytes as text (latin1), for looking for display text. */
  text(path: string): string {
    return this.written(path).toString('latin1');
  }
}

export function countOccurrences(haystack: Buffer, needle: Buffer): number {
  let count = 0;
  for (let index = haystack.indexOf(needle); index >= 0; index = haystack.indexOf(needle, index + needle.length)) count += 1;
  return count;
}
