import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Credential } from '../devices.js';
import { testDevices } from '../test-support/devices.js';
import { eventually } from '../test-support/eventually.js';
import { MockSerialPorts } from '../test-support/serial-mock.js';
import { openReader } from './index.js';

const FRAME_004E2B4E = Buffer.from([0x02, 0x30, 0x31, 0x30, 0x30, 0x34, 0x45, 0x32, 0x42, 0x34, 0x45, 0x32, 0x41, 0x03]);
const BAD_CHECKSUM = Buffer.from([0x02, 0x30, 0x31, 0x30, 0x30, 0x34, 0x45, 0x32, 0x42, 0x34, 0x45, 0x30, 0x30, 0x03]);

describe('openReader', () => {
  it('opens a serial reader on its port, hands over each card read as a credential, logs rejected input, and closes its port', async () => {
    const ports = new MockSerialPorts();
    ports.create('/dev/test-rdm');
    const credentials: Credential[] = [];
    const warnings: string[] = [];
    const lost: Error[] = [];
    const reader = await openReader(
      { driver: 'rdm6300', port: '/dev/test-rdm', baudRate: 9600 },
      testDevices({
        serialPortFactory: ports.factory,
        logger: { debug() {}, info() {}, warn: (line) => warnings.push(line), error() {} },
        onLost: (error) => lost.push(error),
      }),
      (credential) => credentials.push(credential),
    );
    expect(reader.driver).toBe('rdm6300');
    ports.emit('/dev/test-rdm', Buffer.concat([BAD_CHECKSUM, FRAME_004E2B4E]));
    await eventually(() => credentials.length === 1, 'the credential');
    expect(credentials).toEqual([{ kind: 'card', card: '004E2B4E' }]);
    expect(warnings).toEqual(['reader rdm6300: rejected input: bad checksum 00 (computed 2a)']);
    await reader.close();
    expect(() => ports.emit('/dev/test-rdm', FRAME_004E2B4E)).toThrow('Port must be open');
    expect(lost).toEqual([]);
  });

  it('opens the line and wiegand readers with their formats', async () => {
    const ports = new MockSerialPorts();
    ports.create('/dev/test-line', '/dev/test-wiegand');
    const credentials: Credential[] = [];
    const devices = testDevices({ serialPortFactory: ports.factory });
    const line = await openReader({ driver: 'line', port: '/dev/test-line', baudRate: 9600, format: 'hex' }, devices, (credential) =>
      credentials.push(credential),
    );
    const wiegand = await openReader({ driver: 'wiegand', port: '/dev/test-wiegand', baudRate: 9600, bits: 26 }, devices, (credential) =>
      credentials.push(credential),
    );
    ports.emit('/dev/test-line', '12345678\r\n');
    await eventually(() => credentials.length === 1, 'the line reader\'s card');
    ports.emit('/dev/test-wiegand', '0x0246073\n');
    await eventually(() => credentials.length === 2, 'the Wiegand card');
    expect(credentials).toEqual([
      { kind: 'card', card: '12345678' },
      { kind: 'card', card: '123039' },
    ]);
    await line.close();
    await wiegand.close();
  });

  it('reports a reader whose port goes away as lost', async () => {
    const ports = new MockSerialPorts();
    ports.create('/dev/test-gone');
    const lost: Error[] = [];
    await openReader(
      { driver: 'rdm6300', port: '/dev/test-gone', baudRate: 9600 },
      testDevices({ serialPortFactory: ports.factory, onLost: (error) => lost.push(error) }),
      () => {},
    );
    ports.unplug('/dev/test-gone');
    await eventually(() => lost.length === 1, 'the lost-reader report');
    expect(lost[0]?.message).toBe('serial port /dev/test-gone closed unexpectedly');
  });

  it('reads the keyboard reader from stdin until closed', async () => {
    const stdin = new PassThrough();
    const credentials: Credential[] = [];
    const reader = await openReader({ driver: 'keyboard', format: 'auto' }, testDevices({ stdin }), (credential) =>
      credentials.push(credential),
    );
    stdin.write('0005122894\n');
    await eventually(() => credentials.length === 1, 'the typed card');
    await reader.close();
    stdin.write('004E2B4F\n');
    // Written after close, so the reader must not hand it over: a marker read by a listener of its own shows it was delivered.
    const after: string[] = [];
    stdin.on('data', (chunk: Buffer) => after.push(chunk.toString()));
    stdin.resume();
    await eventually(() => after.length === 1, 'the input after close');
    expect(credentials).toEqual([{ kind: 'card', card: '004E2B4E' }]);
  });
});
