import { PassThrough } from 'node:stream';
import type { DeviceEnvironment } from '../devices.js';

/**
 * A driver's environment for a test: silent, no stdin input, and no serial
 * port or process unless the test passes its own (MockSerialPorts' factory,
 * a fake gpioset).
 */
export function testDevices(overrides: Partial<DeviceEnvironment> = {}): DeviceEnvironment {
  return {
    serialPortFactory: (options) => {
      throw new Error(`no serial port in this test: ${options.path}`);
    },
    spawn: (command) => {
      throw new Error(`no process in this test: ${command}`);
    },
    stdin: new PassThrough(),
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    onLost: () => {},
    ...overrides,
  };
}
