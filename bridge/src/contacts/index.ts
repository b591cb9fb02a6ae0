import type { ContactConfig } from '../config.js';
import type { Contact, ContactListener, DeviceEnvironment } from '../devices.js';
import { openGpioContact } from './gpio.js';
import { openSerialContact } from './serial.js';

/** Opens the configured door-position input, which hands each reading to onState (the first one at once for gpio). */
export function openContact(config: ContactConfig, env: DeviceEnvironment, onState: ContactListener): Promise<Contact> {
  switch (config.driver) {
    case 'gpio':
      return openGpioContact(config, env, onState);
    case 'serial':
      return openSerialContact(config, env, onState);
  }
}
