import type { ReaderConfig } from '../config.js';
import type { CredentialListener, DeviceEnvironment, Reader } from '../devices.js';
import { openKeyboardReader } from './keyboard.js';
import { openKeypadReader } from './keypad.js';
import { openLineReader } from './line.js';
import { openQrReader } from './qr.js';
import { openRdm6300Reader } from './rdm6300.js';
import { openWiegandReader } from './wiegand.js';

/** Opens the configured reader, which hands each credential it reads to onCredential until closed. */
export function openReader(config: ReaderConfig, env: DeviceEnvironment, onCredential: CredentialListener): Promise<Reader> {
  switch (config.driver) {
    case 'rdm6300':
      return openRdm6300Reader(config, env, onCredential);
    case 'line':
      return openLineReader(config, env, onCredential);
    case 'wiegand':
      return openWiegandReader(config, env, onCredential);
    case 'keypad':
      return openKeypadReader(config, env, onCredential);
    case 'qr':
      return openQrReader(config, env, onCredential);
    case 'keyboard':
      return openKeyboardReader(config, env, onCredential);
  }
}
