import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { ContactState, SpawnFunction } from '../devices.js';
import { testDevices } from '../test-support/devices.js';
import { eventually } from '../test-support/eventually.js';
import { MockSerialPorts } from '../test-support/serial-mock.js';
import { openContact } from './index.js';
import { parseContactLine } from './serial.js';

class FakeChild extends EventEmitter {
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  stdout = new PassThrough();
  stderr = new PassThrough();
  constructor(
    readonly command: string,
    readonly args: readonly string[],
  ) {
    super();
  }
  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    this.signalCode = signal;
    setImmediate(() => this.emit('exit', null, signal));
    return true;
  }
  /** A tool that prints and exits 0. */
  finish(output: string) {
    this.stdout.end(output);
    this.exitCode = 0;
    this.emit('exit', 0, null);
    this.emit('close', 0, null);
  }
}

/** libgpiod's tools: --version and gpioget answer at once; gpiomon keeps running until killed. */
function fakeLibgpiod(version: string, level: '0' | '1') {
  const spawned: FakeChild[] = [];
  const spawn: SpawnFunction = (command, args) => {
    const child = new FakeChild(command, args);
    spawned.push(child);
    setImmediate(() => {
      child.emit('spawn');
      if (args[0] === '--version') child.finish(`${command} (libgpiod) ${version}\n`);
      else if (command === 'gpioget') child.finish(`${level}\n`);
    });
    return child as unknown as ChildProcess;
  };
  const monitor = () => spawned.find((child) => child.command === 'gpiomon' && child.args[0] !== '--version');
  return { spawn, spawned, monitor };
}

describe('serial contact (OPEN / CLOSED lines)', () => {
  it('reads each line, whatever the chunking, case and line ends, and ignores anything else', async () => {
    const ports = new MockSerialPorts();
    ports.create('/dev/test-contact');
    const states: ContactState[] = [];
    const warnings: string[] = [];
    const contact = await openContact(
      { driver: 'serial', port: '/dev/test-contact', baudRate: 9600 },
      testDevices({ serialPortFactory: ports.factory, logger: { debug() {}, info() {}, warn: (m) => warnings.push(m), error() {} } }),
      (state) => states.push(state),
    );
    ports.emit('/dev/test-contact', 'OP');
    ports.emit('/dev/test-contact', 'EN\r\nclosed\nnoise\r open \n');
    await eventually(() => states.length === 3, 'three readings');
    expect(states).toEqual(['open', 'closed', 'open']);
    expect(warnings).toHaveLength(1);
    await contact.close();
  });

  it('knows only OPEN and CLOSED', () => {
    expect(parseContactLine(' Open ')).toBe('open');
    expect(parseContactLine('CLOSED')).toBe('closed');
    expect(parseContactLine('CLOSE')).toBeNull();
  });
});

describe('gpio contact (gpioget + gpiomon)', () => {
  it('reads the level at start, then each edge (v1 arguments); high is open by default', async () => {
    const { spawn, spawned, monitor } = fakeLibgpiod('v1.6.3', '0');
    const states: ContactState[] = [];
    const contact = await openContact(
      { driver: 'gpio', chip: 'gpiochip0', line: 27, openWhen: 'high', bias: 'pull-up' },
      testDevices({ spawn }),
      (state) => states.push(state),
    );
    expect(states).toEqual(['closed']);
    expect(spawned.map((child) => `${child.command} ${child.args.join(' ')}`)).toEqual([
      'gpiomon --version',
      'gpioget -B pull-up gpiochip0 27',
      'gpiomon --line-buffered -B pull-up -F %e gpiochip0 27',
    ]);
    // A bouncing switch: only the level it settles on counts.
    monitor()!.stdout.write('1\n0\n1\n');
    await eventually(() => states.length === 2, 'the opening');
    monitor()!.stdout.write('0\n');
    await eventually(() => states.length === 3, 'the closing');
    expect(states).toEqual(['closed', 'open', 'closed']);
    await contact.close();
    expect(monitor()!.signalCode).toBe('SIGTERM');
  });

  it('uses v2 arguments (falling edge is 2), and openWhen low inverts the level', async () => {
    const { spawn, spawned, monitor } = fakeLibgpiod('v2.1', '0');
    const states: ContactState[] = [];
    const contact = await openContact(
      { driver: 'gpio', chip: 'gpiochip4', line: 5, openWhen: 'low', bias: 'disable' },
      testDevices({ spawn }),
      (state) => states.push(state),
    );
    expect(spawned.slice(1).map((child) => `${child.command} ${child.args.join(' ')}`)).toEqual([
      'gpioget --numeric --chip gpiochip4 --bias disable 5',
      'gpiomon --chip gpiochip4 --bias disable --format %e 5',
    ]);
    monitor()!.stdout.write('1\n');
    await eventually(() => states.length === 2, 'the edge');
    monitor()!.stdout.write('2\n');
    await eventually(() => states.length === 3, 'the next edge');
    expect(states).toEqual(['open', 'closed', 'open']);
    await contact.close();
  });

  it('reports a gpiomon that dies as a lost device', async () => {
    const { spawn, monitor } = fakeLibgpiod('v1.6.3', '1');
    const lost: Error[] = [];
    await openContact(
      { driver: 'gpio', chip: 'gpiochip0', line: 27, openWhen: 'high', bias: 'pull-up' },
      testDevices({ spawn, onLost: (error) => lost.push(error) }),
      () => {},
    );
    monitor()!.stderr.write('gpiomon: error waiting for events: Device or resource busy\n');
    await new Promise((resolve) => setImmediate(resolve));
    monitor()!.emit('exit', 1, null);
    await eventually(() => lost.length === 1, 'the lost-contact report');
    expect(lost[0]?.message).toMatch(/resource busy/);
  });
});
