import type { LockConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { SerialPortFactory } from '../serial.js';
import { createConsoleLock } from './console.js';
import { openGpioLock, type SpawnFunction } from './gpio.js';
import { openLcus1Lock } from './lcus1.js';

export interface Lock {
  readonly driver: LockConfig['driver'];
  unlock(): Promise<void>;
  lock(): Promise<void>;
  /** Locks, then releases the hardware: the door is left shut (fail-secure). */
  close(): Promise<void>;
}

export interface LockEnvironment {
  serialPortFactory: SerialPortFactory;
  spawn: SpawnFunction;
  logger: Logger;
  onLost: (error: Error) => void;
}

/** Opens the lock driver and locks it: the door is always shut at start. */
export async function openLock(config: LockConfig, env: LockEnvironment): Promise<Lock> {
  const lock =
    config.driver === 'lcus1'
      ? await openLcus1Lock(config, env.serialPortFactory, env.logger, env.onLost)
      : config.driver === 'gpio'
        ? await openGpioLock(config, env.spawn, env.logger, env.onLost)
        : createConsoleLock(env.logger);
  await lock.lock();
  return lock;
}
