import type { LockConfig } from '../config.js';
import type { DeviceEnvironment, Lock } from '../devices.js';
import { openSerialPort } from '../serial.js';

/** LCUS-1 USB relay board (CH340, 9600 baud): A0 <relay 01> <state> <sum>. */
export const LCUS1_OPEN = Buffer.from([0xa0, 0x01, 0x01, 0xa2]);
export const LCUS1_CLOSE = Buffer.from([0xa0, 0x01, 0x00, 0xa1]);

/** Relay energised = door released; wire a fail-secure strike to the NO contact. */
export async function openLcus1Lock(config: Extract<LockConfig, { driver: 'lcus1' }>, env: DeviceEnvironment): Promise<Lock> {
  const port = await openSerialPort(env.serialPortFactory, { path: config.port, baudRate: config.baudRate }, env.onLost);
  env.logger.debug(`lock lcus1 on ${config.port}`);
  return {
    driver: 'lcus1',
    unlock: () => port.write(LCUS1_OPEN),
    lock: () => port.write(LCUS1_CLOSE),
    close: async () => {
      try {
        await port.write(LCUS1_CLOSE);
      } finally {
        await port.close();
      }
    },
  };
}
