import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { SpawnFunction } from '../devices.js';
import { testDevices } from '../test-support/devices.js';
import { eventually } from '../test-support/eventually.js';
import { MockSerialPorts } from '../test-support/serial-mock.js';
import { openGpioLock } from './gpio.js';
import { LCUS1_CLOSE, LCUS1_OPEN } from './lcus1.js';
import { openLock } from './index.js';

class FakeChild extends EventEmitter {
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  stdout = new PassThrough();
  stderr = new PassThrough();
  constructor(readonly args: readonly string[]) {
    super();
  }
  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    this.signalCode = signal;
    setImmediate(() => this.emit('exit', null, signal));
    return true;
  }
}

function fakeGpioset(versionOutput: string) {
  const spawned: FakeChild[] = [];
  const spawn: SpawnFunction = (command, args) => {
    expect(command).toBe('gpioset');
    const child = new FakeChild(args);
    spawned.push(child);
    setImmediate(() => {
      child.emit('spawn');
      if (args[0] === '--version') {
        child.stdout.end(versionOutput);
        child.exitCode = 0;
        child.emit('exit', 0, null);
        child.emit('close', 0, null);
      }
    });
    return child as unknown as ChildProcess;
  };
  return { spawn, spawned };
}

describe('LCUS-1 relay lock', () => {
  it('is closed at start, opens and closes with the board bytes, closed at shutdown', async () => {
    const ports = new MockSerialPorts();
    ports.create('/dev/test-relay');
    const lock = await openLock(
      { driver: 'lcus1', port: '/dev/test-relay', baudRate: 9600 },
      testDevices({ serialPortFactory: ports.factory }),
    );
    await lock.unlock();
    await lock.lock();
    await lock.close();
    expect(ports.written('/dev/test-relay')).toEqual(Buffer.concat([LCUS1_CLOSE, LCUS1_OPEN, LCUS1_CLOSE, LCUS1_CLOSE]));
  });
});

describe('gpio lock (gpioset)', () => {
  it('holds the line with libgpiod v1 arguments and releases it at the end, locked', async () => {
    const { spawn, spawned } = fakeGpioset('gpioset (libgpiod) v1.6.3\nCopyright (C) 2017-2018 Bartosz Golaszewski\n');
    const lost: Error[] = [];
    const lock = await openGpioLock(
      { driver: 'gpio', chip: 'gpiochip0', line: 17, activeLow: true },
      testDevices({ spawn, onLost: (error) => lost.push(error) }),
    );
    await lock.lock();
    await lock.unlock();
    await lock.close();
    expect(spawned.map((child) => child.args.join(' '))).toEqual([
      '--version',
      '--mode=signal --active-low gpiochip0 17=0',
      '--mode=signal --active-low gpiochip0 17=1',
      '--mode=signal --active-low gpiochip0 17=0',
    ]);
    // Every holder was stopped before the next one started, and the last one at close.
    expect(spawned.slice(1).every((child) => child.signalCode === 'SIGTERM')).toBe(true);
    expect(lost).toEqual([]);
  });

  it('uses libgpiod v2 arguments', async () => {
    const { spawn, spawned } = fakeGpioset('gpioset (libgpiod) v2.1\n');
    const lock = await openGpioLock({ driver: 'gpio', chip: 'gpiochip4', line: 5, activeLow: false }, testDevices({ spawn }));
    await lock.unlock();
    expect(spawned[1]?.args).toEqual(['--chip', 'gpiochip4', '5=1']);
    await lock.close();
  });

  it('reports a holder that dies as a lost lock', async () => {
    const { spawn, spawned } = fakeGpioset('gpioset (libgpiod) v2.1\n');
    const lost: Error[] = [];
    await openGpioLock(
      { driver: 'gpio', chip: 'gpiochip0', line: 17, activeLow: false },
      testDevices({ spawn, onLost: (error) => lost.push(error) }),
    ).then((lock) => lock.lock());
    spawned[1]?.stderr.write('gpioset: error setting the GPIO line values: Device or resource busy\n');
    await new Promise((resolve) => setImmediate(resolve));
    spawned[1]?.emit('exit', 1, null);
    await eventually(() => lost.length === 1, 'the lost-lock report');
    expect(lost[0]?.message).toMatch(/resource busy/);
  });
});
