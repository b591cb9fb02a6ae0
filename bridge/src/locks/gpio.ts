import { spawn as nodeSpawn, type ChildProcess } from 'node:child_process';
import type { LockConfig } from '../config.js';
import type { DeviceEnvironment, Lock, SpawnFunction } from '../devices.js';

export const spawnProcess: SpawnFunction = (command, args) => nodeSpawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * A GPIO line driven through libgpiod's `gpioset`. A line keeps its value only
 * while a gpioset process holds it, so one gpioset runs at all times holding
 * the current value (v1: --mode=signal; v2 holds by default); a change kills it
 * and starts another. "Unlocked" is the active value (1, or 0 with activeLow).
 */
export async function openGpioLock(config: Extract<LockConfig, { driver: 'gpio' }>, env: DeviceEnvironment): Promise<Lock> {
  const { spawn, logger, onLost } = env;
  const version = await libgpiodMajorVersion(spawn, 'gpioset');
  let holder: ChildProcess | null = null;

  const argsFor = (active: boolean): string[] => {
    const flags = config.activeLow ? ['--active-low'] : [];
    const assignment = `${config.line}=${active ? 1 : 0}`;
    return version === 1
      ? ['--mode=signal', ...flags, config.chip, assignment]
      : ['--chip', config.chip, ...flags, assignment];
  };

  const release = async (): Promise<void> => {
    const current = holder;
    holder = null;
    if (current === null || current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => current.once('exit', () => resolve()));
    current.kill('SIGTERM');
    const timeout = setTimeout(() => current.kill('SIGKILL'), 1000);
    await exited;
    clearTimeout(timeout);
  };

  const hold = async (active: boolean): Promise<void> => {
    await release();
    const child = spawn('gpioset', argsFor(active));
    holder = child;
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code, signal) => {
      if (holder === child) {
        holder = null;
        onLost(new Error(`gpioset exited (${signal ?? `code ${code}`}) while holding the lock line: ${stderr.trim()}`));
      }
    });
    await new Promise<void>((resolve, reject) => {
      let spawned = false;
      child.once('spawn', () => {
        spawned = true;
        resolve();
      });
      child.on('error', (error) => {
        if (spawned) logger.error(`gpioset: ${error.message}`);
        else reject(new Error(`cannot run gpioset: ${error.message}`));
      });
    });
  };

  logger.debug(`lock gpio ${config.chip} line ${config.line}${config.activeLow ? ' (active low)' : ''}, gpioset v${version}`);
  return {
    driver: 'gpio',
    unlock: () => hold(true),
    lock: () => hold(false),
    close: async () => {
      await hold(false);
      await release();
    },
  };
}

/** The major version of one of libgpiod's tools (gpioset, gpioget, gpiomon): their options differ between v1 and v2. */
export async function libgpiodMajorVersion(spawn: SpawnFunction, tool: 'gpioset' | 'gpioget' | 'gpiomon'): Promise<1 | 2> {
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(tool, ['--version']);
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.once('error', (error) =>
      reject(new Error(`cannot run ${tool} (install it with: apt install gpiod): ${error.message}`)),
    );
    child.once('close', () => resolve(text));
  });
  const major = /v(\d+)\./.exec(output)?.[1];
  if (major === '1') return 1;
  if (major === '2') return 2;
  throw new Error(`unrecognised ${tool} version: ${JSON.stringify(output.trim().slice(0, 80))}`);
}
