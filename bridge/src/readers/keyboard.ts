import type { ReaderConfig } from '../config.js';
import type { CredentialListener, DeviceEnvironment, Reader } from '../devices.js';
import { LineCardParser } from './line.js';
import { readParsed } from './parsed-input.js';

/** Card ids typed on standard input, one per line (development, simulate mode). */
export async function openKeyboardReader(
  config: Extract<ReaderConfig, { driver: 'keyboard' }>,
  env: DeviceEnvironment,
  onCredential: CredentialListener,
): Promise<Reader> {
  return readParsed(config.driver, env.stdin, new LineCardParser(config.format), env, onCredential, async () => {
    env.stdin.pause();
  });
}
