import { describe, expect, it } from 'vitest';
import type { Credential } from '../devices.js';
import { testDevices } from '../test-support/devices.js';
import { eventually } from '../test-support/eventually.js';
import { MockSerialPorts } from '../test-support/serial-mock.js';
import { openReader } from './index.js';
import { KeyboardParser } from './keyboard.js';
import { decodeKeyBurst, LineKeypadParser, WiegandKeypadParser } from './keypad.js';
import { QrLineParser } from './qr.js';

/** What a Wiegand-to-serial converter prints for a key, one line each: 4-bit or 8-bit bursts, as bits or hex. */
const KEY_CODES: Record<string, number> = { '*': 10, '#': 11 };
const code = (key: string) => KEY_CODES[key] ?? Number(key);
const burst4 = (keys: string) => [...keys].map((key) => `${code(key).toString(2).padStart(4, '0')}\r\n`).join('');
const burst8 = (keys: string) => [...keys].map((key) => `${(((~code(key) & 0xf) << 4) | code(key)).toString(2).padStart(8, '0')}\r\n`).join('');
const hex8 = (keys: string) => [...keys].map((key) => `${(((~code(key) & 0xf) << 4) | code(key)).toString(16).toUpperCase().padStart(2, '0')}\n`).join('');

function feed(parser: WiegandKeypadParser | LineKeypadParser | QrLineParser | KeyboardParser, ...chunks: string[]) {
  const read: Array<string | Credential> = [];
  const rejected: string[] = [];
  parser.on('data', (item: string | Credential) => read.push(item));
  parser.on('reject', (reason: string) => rejected.push(reason));
  for (const chunk of chunks) parser.write(Buffer.from(chunk, 'latin1'));
  return { read, rejected };
}

const TOKEN = 'LC1-MFRGGZDFMZTWQ2LKNNWG23TPOA';

describe('decodeKeyBurst', () => {
  it('reads 4-bit and 8-bit bursts, as bits or hex', () => {
    expect(decodeKeyBurst('0101')).toEqual({ key: 5 });
    expect(decodeKeyBurst('1011')).toEqual({ key: 11 });
    expect(decodeKeyBurst('A')).toEqual({ key: 10 });
    expect(decodeKeyBurst('11100001')).toEqual({ key: 1 });
    expect(decodeKeyBurst('0x4B')).toEqual({ key: 11 });
    expect(decodeKeyBurst('5a')).toEqual({ key: 10 });
  });

  it('refuses an 8-bit burst whose high nibble is not the complement, and codes above 11', () => {
    expect(decodeKeyBurst('11110001')).toEqual({ rejected: '8-bit key burst: the high nibble is not the complement of the key' });
    expect(decodeKeyBurst('1100')).toEqual({ rejected: 'not a key code: 12' });
    expect(decodeKeyBurst('3C')).toEqual({ rejected: 'not a key code: 12' });
    expect(decodeKeyBurst('hello')).toBeNull();
  });
});

describe('WiegandKeypadParser', () => {
  it('hands over the digits as a PIN on "#", from 4-bit bursts', () => {
    expect(feed(new WiegandKeypadParser(), burst4('482913#')).read).toEqual([{ kind: 'pin', pin: '482913' }]);
  });

  it('reads 8-bit bursts, as bits or hex, whatever the chunking', () => {
    const bytes = burst8('1357#');
    const { read } = feed(new WiegandKeypadParser(), bytes.slice(0, 5), bytes.slice(5, 23), bytes.slice(23), hex8('246802#'));
    expect(read).toEqual([
      { kind: 'pin', pin: '1357' },
      { kind: 'pin', pin: '246802' },
    ]);
  });

  it('"*" clears what was typed; "#" alone does nothing', () => {
    const parser = new WiegandKeypadParser();
    const cleared: string[] = [];
    parser.on('cleared', (why: string) => cleared.push(why));
    const { read, rejected } = feed(parser, burst4('999*'), burst4('#'), burst4('4829*13*'), burst8('482913#'));
    expect(read).toEqual([{ kind: 'pin', pin: '482913' }]);
    expect(rejected).toEqual([]);
    expect(cleared).toEqual(['star', 'star', 'star']);
  });

  it('refuses too short and too long entries, without a digit in the reason', () => {
    const { read, rejected } = feed(new WiegandKeypadParser(), burst4('123#'), burst4('1234567890123#'), burst4('1234#'));
    expect(read).toEqual([{ kind: 'pin', pin: '1234' }]);
    expect(rejected).toEqual(['a PIN has 4 to 12 digits, 3 typed', 'a PIN has 4 to 12 digits, more typed']);
  });

  it('forgets keys after idleClearMs without a key', async () => {
    const parser = new WiegandKeypadParser(100);
    const cleared: string[] = [];
    parser.on('cleared', (why: string) => cleared.push(why));
    const { read } = feed(parser, burst4('111'));
    await eventually(() => cleared.length === 1, 'the idle clear');
    parser.write(Buffer.from(burst4('482913#')));
    expect(cleared).toEqual(['idle']);
    expect(read).toEqual([{ kind: 'pin', pin: '482913' }]);
  });

  it('reads the card frames of a keypad with a reader on the same wires, and drops noise', () => {
    const { read, rejected } = feed(new WiegandKeypadParser(), '10000000100000000000000010\r\n', 'garbage\n', '11110001\n', burst4('1234#'));
    expect(read).toEqual(['010001', { kind: 'pin', pin: '1234' }]);
    expect(rejected).toEqual([
      'not a key burst or a card frame (7 characters)',
      '8-bit key burst: the high nibble is not the complement of the key',
    ]);
  });
});

describe('LineKeypadParser, QrLineParser, KeyboardParser', () => {
  it('a line keypad: one PIN per line, a trailing "#" allowed', () => {
    const { read, rejected } = feed(new LineKeypadParser(), '482913\r\n', '1234#\n', '12\n', '12a456\n');
    expect(read).toEqual([
      { kind: 'pin', pin: '482913' },
      { kind: 'pin', pin: '1234' },
    ]);
    expect(rejected).toEqual(['a PIN has 4 to 12 digits, 2 typed', 'not a PIN (6 characters)']);
  });

  it('a QR scanner: one token per line, upper-cased; anything else refused without echoing it', () => {
    const { read, rejected } = feed(new QrLineParser(), `${TOKEN}\r\n`, `${TOKEN.toLowerCase()}\n`, 'https://example.org/x\n', 'LC1-SHORT\n');
    expect(read).toEqual([
      { kind: 'qr', qr: TOKEN },
      { kind: 'qr', qr: TOKEN },
    ]);
    expect(rejected).toEqual(["not a key's QR code (21 characters)", "not a key's QR code (9 characters)"]);
  });

  it('the console (simulate mode): a PIN ends in "#", a QR token starts with LC1-, anything else is a card', () => {
    const { read } = feed(new KeyboardParser(), '482913#\n', `${TOKEN}\n`, '0005122894\n', '004e2b4e\n');
    expect(read).toEqual([{ kind: 'pin', pin: '482913' }, { kind: 'qr', qr: TOKEN }, '004E2B4E', '004E2B4E']);
  });
});

describe('keypad and QR readers on serial ports', () => {
  it('hand over PINs, cards and QR tokens; the log names rejected input but never its digits', async () => {
    const ports = new MockSerialPorts();
    ports.create('/dev/test-keypad', '/dev/test-line-keypad', '/dev/test-qr');
    const credentials: Credential[] = [];
    const logged: string[] = [];
    const log = (line: string) => logged.push(line);
    const devices = testDevices({ serialPortFactory: ports.factory, logger: { debug: log, info: log, warn: log, error: log } });
    const onCredential = (credential: Credential) => credentials.push(credential);
    const keypad = await openReader({ driver: 'keypad', port: '/dev/test-keypad', baudRate: 9600, input: 'wiegand', idleClearMs: 10_000 }, devices, onCredential);
    const lineKeypad = await openReader({ driver: 'keypad', port: '/dev/test-line-keypad', baudRate: 9600, input: 'line', idleClearMs: 10_000 }, devices, onCredential);
    const qr = await openReader({ driver: 'qr', port: '/dev/test-qr', baudRate: 115200 }, devices, onCredential);
    expect([keypad.driver, lineKeypad.driver, qr.driver]).toEqual(['keypad', 'keypad', 'qr']);
    ports.emit('/dev/test-keypad', burst8('5555*') + burst4('482913#'));
    await eventually(() => credentials.length === 1, 'the PIN');
    ports.emit('/dev/test-line-keypad', '7777\r\n19\r\n');
    await eventually(() => credentials.length === 2, 'the line PIN');
    ports.emit('/dev/test-qr', `${TOKEN}\r\n`);
    await eventually(() => credentials.length === 3, 'the QR token');
    expect(credentials).toEqual([
      { kind: 'pin', pin: '482913' },
      { kind: 'pin', pin: '7777' },
      { kind: 'qr', qr: TOKEN },
    ]);
    expect(logged).toEqual(['reader keypad: entry cleared ("*")', 'reader keypad: rejected input: a PIN has 4 to 12 digits, 2 typed']);
    await Promise.all([keypad.close(), lineKeypad.close(), qr.close()]);
  });
});
