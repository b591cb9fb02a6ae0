import type { DisplayConfig } from '../config.js';
import type { DeviceEnvironment, Display } from '../devices.js';
import { openConsoleDisplay } from './console.js';
import { openSerLcd } from './serlcd.js';

/** Opens the configured display driver. */
export function openDisplay(config: DisplayConfig, env: DeviceEnvironment): Promise<Display> {
  switch (config.driver) {
    case 'serlcd':
      return openSerLcd(config, env);
    case 'console':
      return openConsoleDisplay(config, env);
  }
}
