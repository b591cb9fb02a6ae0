import type { Logger } from '../logger.js';
import type { Lock } from './index.js';

/** Development lock: logs what a relay would do. */
export function createConsoleLock(logger: Logger): Lock {
  return {
    driver: 'console',
    unlock: async () => logger.info('lock OPEN'),
    lock: async () => logger.info('lock closed'),
    close: async () => logger.info('lock closed'),
  };
}
