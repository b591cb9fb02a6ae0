import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfigFile, parseConfig, redactConfig } from './config.js';

const valid = {
  doorId: 'front-door',
  mqtt: { url: 'mqtts://app.example.org:8883', password: 's3cret-door-key' },
  reader: { driver: 'rdm6300', port: '/dev/serial0' },
  display: { driver: 'serlcd', port: '/dev/ttyUSB1' },
  lock: { driver: 'lcus1', port: '/dev/ttyUSB0' },
};

function problemsOf(input: unknown): string[] {
  try {
    parseConfig(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('config', () => {
  it('fills in the defaults', () => {
    const config = parseConfig(valid, { baseDir: '/etc/coliving-bridge' });
    expect(config.mqtt.username).toBe('front-door');
    expect(config.mqtt.topicPrefix).toBe('coliving');
    expect(config.mqtt.protocolVersion).toBe(4);
    expect(config.decisionTimeoutMs).toBe(400);
    expect(config.offline).toBe('cache');
    expect(config.unlockMs).toBeUndefined();
    expect(config.dataDir).toBe('/var/lib/coliving-bridge');
    expect(config.eventResendMs).toBe(30_000);
    expect(config.readers).toEqual([{ driver: 'rdm6300', port: '/dev/serial0', baudRate: 9600 }]);
  });

  it('resolves relative paths against the config file directory', () => {
    const config = parseConfig({ ...valid, dataDir: 'data', mqtt: { ...valid.mqtt, caFile: 'ca.pem' } }, { baseDir: '/etc/cb' });
    expect(config.dataDir).toBe('/etc/cb/data');
    expect(config.mqtt.caFile).toBe('/etc/cb/ca.pem');
  });

  it('names the field in each error', () => {
    expect(problemsOf({ ...valid, doorId: 'front door!' })).toEqual([
      'doorId: must be 1-32 characters: letters, digits, "_" or "-"',
    ]);
    expect(problemsOf({ ...valid, mqtt: { url: 'http://x' } })).toEqual([
      'mqtt.url: must be a URL such as mqtt://host:1883 or mqtts://host:8883',
    ]);
    expect(problemsOf({ ...valid, reader: { driver: 'rc522' } })).toEqual([
      'reader.driver: must be one of "rdm6300", "line", "wiegand", "keypad", "qr", "keyboard"',
    ]);
    expect(problemsOf({ ...valid, lock: { driver: 'lcus1' } })).toEqual(['lock.port: required (string)']);
    expect(problemsOf({ ...valid, unlockMS: 3000 })).toEqual(['unlockMS: unknown field']);
    expect(problemsOf({ ...valid, offline: 'open' })[0]).toMatch(/^offline: /);
    expect(problemsOf({ ...valid, decisionTimeoutMs: 'fast' })[0]).toMatch(/^decisionTimeoutMs: /);
    expect(problemsOf({ ...valid, reader: { driver: 'wiegand', port: '/dev/ttyS0', bits: 32 } })[0]).toMatch(/^reader\.bits: /);
    const missing = problemsOf({});
    expect(missing).toContain('doorId: required (string)');
    expect(missing).toContain('mqtt: required (object)');
  });

  it('puts the file name and every problem in the message', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'bridge-config-'));
    const file = path.join(dir, 'config.json');
    await writeFile(file, JSON.stringify({ ...valid, doorId: '', lock: { driver: 'gpio' } }));
    await expect(loadConfigFile(file, {})).rejects.toThrow(
      new RegExp(`Invalid configuration \\(${file}\\):\\n  - doorId: .*\\n  - lock.line: required`),
    );
    await writeFile(file, '{"doorId": ');
    await expect(loadConfigFile(file, {})).rejects.toThrow(/not valid JSON/);
  });

  it('takes the password from BRIDGE_PASSWORD when the file has none', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'bridge-config-'));
    const file = path.join(dir, 'config.json');
    await writeFile(file, JSON.stringify({ ...valid, mqtt: { url: 'mqtt://127.0.0.1:1883' } }));
    expect((await loadConfigFile(file, { BRIDGE_PASSWORD: 'from-env' })).mqtt.password).toBe('from-env');
    expect((await loadConfigFile(file, {})).mqtt.password).toBeUndefined();
  });

  it('redacts the password and URL credentials', () => {
    const config = parseConfig({ ...valid, mqtt: { url: 'mqtt://door:urlsecret@host:1883', password: 's3cret-door-key' } });
    const dump = JSON.stringify(redactConfig(config));
    expect(dump).not.toContain('s3cret-door-key');
    expect(dump).not.toContain('urlsecret');
    expect(dump).toContain('"password":"***"');
  });
});

describe('config readers', () => {
  const keypad = { driver: 'keypad', port: '/dev/ttyUSB2' };
  const qr = { driver: 'qr', port: '/dev/ttyACM0', baudRate: 115200 };

  it('takes several readers at one door, with the keypad and QR defaults', () => {
    const { reader: _single, ...withoutReader } = valid;
    const config = parseConfig({ ...withoutReader, readers: [valid.reader, keypad, qr] });
    expect(config.readers).toEqual([
      { driver: 'rdm6300', port: '/dev/serial0', baudRate: 9600 },
      { driver: 'keypad', port: '/dev/ttyUSB2', baudRate: 9600, input: 'wiegand', idleClearMs: 10_000 },
      { driver: 'qr', port: '/dev/ttyACM0', baudRate: 115200 },
    ]);
    // A parsed config parses again to itself (startBridge takes either).
    expect(parseConfig(config)).toEqual(config);
  });

  it('wants exactly one of reader and readers, and one port per reader', () => {
    const { reader: _single, ...withoutReader } = valid;
    expect(problemsOf(withoutReader)).toEqual(['reader: required: `reader`, or `readers` for several']);
    expect(problemsOf({ ...valid, readers: [keypad] })).toEqual(['readers: give `reader` or `readers`, not both']);
    expect(problemsOf({ ...withoutReader, readers: [] })[0]).toMatch(/^readers: /);
    expect(problemsOf({ ...withoutReader, readers: [keypad, { ...qr, port: '/dev/ttyUSB2' }] })).toEqual([
      'readers.1: /dev/ttyUSB2 is already used by readers.0',
    ]);
    expect(problemsOf({ ...withoutReader, readers: [{ ...keypad, input: 'usb' }] })[0]).toMatch(/^readers\.0\.input: /);
  });
});

describe('config.example.json', () => {
  it('is a valid configuration', async () => {
    const file = fileURLToPath(new URL('../config.example.json', import.meta.url));
    const config = await loadConfigFile(file, { BRIDGE_PASSWORD: 'x' });
    expect(config).toMatchObject({ doorId: 'front-door', readers: [{ driver: 'rdm6300' }], lock: { driver: 'lcus1' } });
  });
});
