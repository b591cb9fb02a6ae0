import type { LockConfig } from '../config.js';
import type { DeviceEnvironment, Lock } from '../devices.js';
import { openConsoleLock } from './console.js';
import { openGpioLock } from './gpio.js';
import { openLcus1Lock } from './lcus1.js';

/** Opens the configured lock driver and locks it: the door is always shut at start. */
export async function openLock(config: LockConfig, env: DeviceEnvironment): Promise<Lock> {
  const lock = await openDriver(config, env);
  await lock.lock();
  return lock;
}

function openDriver(config: LockConfig, env: DeviceEnvironment): Promise<Lock> {
  switch (config.driver) {
    case 'lcus1':
      return openLcus1Lock(config, env);
    case 'gpio':
      return openGpioLock(config, env);
    case 'console':
      return openConsoleLock(config, env);
  }
}
