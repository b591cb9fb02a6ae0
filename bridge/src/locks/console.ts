import type { LockConfig } from '../config.js';
import type { DeviceEnvironment, Lock } from '../devices.js';

/** Development lock: logs what a relay would do. */
export async function openConsoleLock(config: Extract<LockConfig, { driver: 'console' }>, { logger }: DeviceEnvironment): Promise<Lock> {
  return {
    driver: config.driver,
    unlock: async () => logger.info('lock OPEN'),
    lock: async () => logger.info('lock closed'),
    close: async () => logger.info('lock closed'),
  };
}
