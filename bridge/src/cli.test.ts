import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseCommandLine, simulateDataDir, UsageError } from './cli.js';
import { startBridge } from './controller.js';
import { createConsoleLogger } from './logger.js';
import { eventually } from './test-support/eventually.js';

describe('command line', () => {
  it('builds a simulate config: keyboard reader, console lock and display, data under bridge/data/<door>', async () => {
    const command = await parseCommandLine(['--simulate', '--door', 'front-door'], { BRIDGE_PASSWORD: 'env-secret' });
    expect(command.kind).toBe('run');
    if (command.kind !== 'run') return;
    expect(command.config).toMatchObject({
      doorId: 'front-door',
      mqtt: { url: 'mqtt://127.0.0.1:1883', username: 'front-door', password: 'env-secret' },
      readers: [{ driver: 'keyboard' }],
      lock: { driver: 'console' },
      display: { driver: 'console' },
    });
    expect(command.config.dataDir).toBe(simulateDataDir('front-door'));
    expect(command.config.dataDir.endsWith(path.join('bridge', 'data', 'front-door'))).toBe(true);
  });

  it('prefers --password and --url', async () => {
    const command = await parseCommandLine(
      ['--simulate', '--door', 'd1', '--url', 'mqtt://10.0.0.2:1883', '--password', 'flag-secret'],
      { BRIDGE_PASSWORD: 'env-secret' },
    );
    expect(command.kind === 'run' && command.config.mqtt).toMatchObject({ url: 'mqtt://10.0.0.2:1883', password: 'flag-secret' });
  });

  it('reads --config files', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'bridge-cli-'));
    const file = path.join(dir, 'door.json');
    await writeFile(
      file,
      JSON.stringify({
        doorId: 'd2',
        mqtt: { url: 'mqtt://127.0.0.1:1883' },
        reader: { driver: 'line', port: '/dev/ttyACM0' },
        display: { driver: 'console' },
        lock: { driver: 'gpio', line: 17 },
        dataDir: 'state',
      }),
    );
    const command = await parseCommandLine(['--config', file, '--log-level', 'debug'], { BRIDGE_PASSWORD: 'x' });
    expect(command.kind === 'run' && command.config).toMatchObject({ logLevel: 'debug', dataDir: path.join(dir, 'state') });
    expect((await parseCommandLine(['--config', file, '--check'], {})).kind).toBe('check');
  });

  it('explains usage mistakes', async () => {
    await expect(parseCommandLine([], {})).rejects.toThrow(UsageError);
    await expect(parseCommandLine(['--simulate'], {})).rejects.toThrow(/--door/);
    await expect(parseCommandLine(['--config', 'x.json', '--door', 'a'], {})).rejects.toThrow(/--door is for --simulate/);
    await expect(parseCommandLine(['--simulate', '--door', 'bad door'], {})).rejects.toThrow(/doorId: must be/);
    await expect(parseCommandLine(['--bogus'], {})).rejects.toThrow(UsageError);
    expect(await parseCommandLine(['--help'], {})).toEqual({ kind: 'help' });
    await expect(parseCommandLine(['--simulate', '--door', 'a', '--check'], {})).rejects.toThrow(/--check/);
  });
});

describe('simulate-style bridge (keyboard, console lock and display)', () => {
  it('decides a typed card and never logs the password', async () => {
    const lines: string[] = [];
    const stdin = new PassThrough();
    const bridge = await startBridge(
      {
        doorId: 'sim-door',
        // Nothing listens on port 1: the bridge is offline from the start.
        mqtt: { url: 'mqtt://door:url-secret@127.0.0.1:1', password: 'pw-7d1e2b', reconnectMinMs: 20, reconnectMaxMs: 40 },
        reader: { driver: 'keyboard' },
        display: { driver: 'console' },
        lock: { driver: 'console' },
        dataDir: await mkdtemp(path.join(tmpdir(), 'bridge-sim-')),
        logLevel: 'debug',
      },
      { stdin, logger: createConsoleLogger('debug', (line) => lines.push(line), false) },
    );
    stdin.write('0005122894\n');
    await eventually(() => lines.some((line) => line.includes('card 004E2B4E: denied offline (unknown_card)')), 'the decision');
    await eventually(() => lines.some((line) => line.includes('display [ACCESS DENIED   ] [OFFLINE MODE    ]')), 'the display');
    await eventually(() => lines.filter((line) => line.includes('ECONNREFUSED')).length >= 2, 'a few reconnection attempts');
    await bridge.stop();
    expect(lines.some((line) => line.includes('"password":"***"'))).toBe(true);
    expect(lines.filter((line) => line.includes('pw-7d1e2b') || line.includes('url-secret'))).toEqual([]);
    expect(lines.at(-1)).toMatch(/stopped, door locked/);
  });

  it('takes a PIN ending in "#" and a QR token typed at the console, and logs neither', async () => {
    const lines: string[] = [];
    const stdin = new PassThrough();
    const bridge = await startBridge(
      {
        doorId: 'sim-keys',
        mqtt: { url: 'mqtt://127.0.0.1:1', password: 'pw', reconnectMinMs: 20, reconnectMaxMs: 40 },
        reader: { driver: 'keyboard' },
        display: { driver: 'console' },
        lock: { driver: 'console' },
        dataDir: await mkdtemp(path.join(tmpdir(), 'bridge-sim-')),
        logLevel: 'debug',
      },
      { stdin, logger: createConsoleLogger('debug', (line) => lines.push(line), false) },
    );
    stdin.write('482913#\nLC1-MFRGGZDFMZTWQ2LKNNWG23TPOA\n');
    await eventually(() => lines.some((line) => line.includes('PIN ****: denied offline (invalid_key)')), 'the PIN decision');
    await eventually(() => lines.some((line) => line.includes('QR LC1-****: denied offline (invalid_key)')), 'the QR decision');
    expect(lines.some((line) => line.includes('display [ACCESS DENIED   ] [Codigo no valido]'))).toBe(true);
    await bridge.stop();
    expect(lines.filter((line) => line.includes('482913') || line.includes('MFRGGZDFMZTWQ2LKNNWG23TPOA'))).toEqual([]);
  });
});

describe('console logger', () => {
  it('prefixes journal priorities under systemd, timestamps elsewhere, and filters by level', () => {
    const lines: string[] = [];
    const journal = createConsoleLogger('info', (line) => lines.push(line), true);
    journal.debug('hidden');
    journal.info('hello');
    journal.warn('careful');
    journal.error('broken');
    expect(lines).toEqual(['<6>INFO  hello', '<4>WARN  careful', '<3>ERROR broken']);
    lines.length = 0;
    createConsoleLogger('debug', (line) => lines.push(line), false).debug('x');
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z DEBUG x$/);
  });

  it('masks PINs and QR tokens in whatever line they slipped into', () => {
    const lines: string[] = [];
    createConsoleLogger('info', (line) => lines.push(line), true).warn(
      'mqtt: ignoring {"id":"x","pin":"482913","at":"y"} and {"qr": "LC1-MFRGGZDFMZTWQ2LKNNWG23TPOA"}; scanned lc1-mfrggzdfmztwq2lknnwg23tpoa',
    );
    expect(lines).toEqual(['<4>WARN  mqtt: ignoring {"id":"x","pin":"***","at":"y"} and {"qr": "***"}; scanned LC1-****']);
  });
});
