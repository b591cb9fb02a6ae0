import type { ChildProcess } from 'node:child_process';
import type { ContactConfig } from '../config.js';
import type { Contact, ContactListener, DeviceEnvironment, SpawnFunction } from '../devices.js';
import { libgpiodMajorVersion } from '../locks/gpio.js';

/** A reed switch bounces: a level is reported once it has held this long. */
export const CONTACT_DEBOUNCE_MS = 30;

/**
 * A door-position switch on a GPIO line, read through the Linux GPIO
 * character device with libgpiod's tools (the same `gpiod` package as the
 * gpio lock): `gpioget` reads the level once at start, then one `gpiomon`
 * runs for as long as the bridge does and prints each edge (`%e`: 1 rising;
 * 0 falling in v1, 2 in v2). High is "open" unless openWhen is "low".
 */
export async function openGpioContact(
  config: Extract<ContactConfig, { driver: 'gpio' }>,
  env: DeviceEnvironment,
  onState: ContactListener,
): Promise<Contact> {
  const { spawn, logger, onLost } = env;
  const version = await libgpiodMajorVersion(spawn, 'gpiomon');
  const line = String(config.line);
  const stateOf = (high: boolean) => (high === (config.openWhen === 'high') ? 'open' : 'closed');

  const getArgs = version === 1 ? ['-B', config.bias, config.chip, line] : ['--numeric', '--chip', config.chip, '--bias', config.bias, line];
  const level = (await runToEnd(spawn, 'gpioget', getArgs)).trim();
  if (level !== '0' && level !== '1') throw new Error(`gpioget ${config.chip} line ${line}: unexpected output ${JSON.stringify(level.slice(0, 40))}`);
  onState(stateOf(level === '1'));

  const monitorArgs =
    version === 1
      ? ['--line-buffered', '-B', config.bias, '-F', '%e', config.chip, line]
      : ['--chip', config.chip, '--bias', config.bias, '--format', '%e', line];
  let monitor: ChildProcess | null = spawn('gpiomon', monitorArgs);
  const child = monitor;
  let stderr = '';
  let pending = '';
  let debounce: NodeJS.Timeout | null = null;
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString('latin1')).split('\n');
    pending = lines.pop() ?? '';
    const edge = lines.map((text) => text.trim()).filter((text) => text !== '').at(-1);
    if (edge === undefined) return;
    const high = edge === '1';
    if (debounce !== null) clearTimeout(debounce);
    debounce = setTimeout(() => {
      debounce = null;
      onState(stateOf(high));
    }, CONTACT_DEBOUNCE_MS);
  });
  child.on('exit', (code, signal) => {
    if (monitor !== child) return;
    monitor = null;
    onLost(new Error(`gpiomon exited (${signal ?? `code ${code}`}) while watching the door contact: ${stderr.trim()}`));
  });
  child.on('error', (error) => logger.error(`gpiomon: ${error.message}`));
  logger.debug(`contact gpio ${config.chip} line ${line} (open when ${config.openWhen}, bias ${config.bias}), gpiomon v${version}`);

  return {
    driver: 'gpio',
    close: async () => {
      if (debounce !== null) clearTimeout(debounce);
      const current = monitor;
      monitor = null;
      if (current === null || current.exitCode !== null || current.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => current.once('exit', () => resolve()));
      current.kill('SIGTERM');
      await exited;
    },
  };
}

/** Runs a tool to its end and answers what it printed; fails when it cannot run or exits non-zero. */
function runToEnd(spawn: SpawnFunction, command: string, args: string[]): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const child = spawn(command, args);
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', (error) => reject(new Error(`cannot run ${command}: ${error.message}`)));
    child.once('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(' ')}: exit ${code}: ${err.trim()}`))));
  });
}
