import { describe, expect, it } from 'vitest';
import { eventually } from '../test-support/eventually.js';
import { MockSerialPorts } from '../test-support/serial-mock.js';
import { toLcdLine } from './lcd-text.js';
import { openSerLcd, SERLCD_CLEAR, serlcdFrame } from './serlcd.js';
import { openConsoleDisplay } from './console.js';
import type { Logger } from '../logger.js';
import { testDevices } from '../test-support/devices.js';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

describe('toLcdLine', () => {
  it('transliterates accents and drops ¿ ¡', () => {
    expect(toLcdLine('¡Bienvenida, Señora Müller!')).toBe('Bienvenida, Seno');
    expect(toLcdLine('¿Qué tal? Àéíóú')).toBe('Que tal? Aeiou');
    expect(toLcdLine('1º piso, 2ª')).toBe('1o piso, 2a');
  });

  it('shows other non-ASCII as "?" and keeps SerLCD command bytes out', () => {
    expect(toLcdLine('€5 ✓ 日本')).toBe('?5 ? ??');
    expect(toLcdLine('a|b\tc\u0007')).toBe('a!b c?');
  });

  it('fits to 16 characters', () => {
    expect(toLcdLine('0123456789ABCDEFGHIJ')).toBe('0123456789ABCDEF');
    expect(toLcdLine('ñññññññññññññññññññ')).toBe('nnnnnnnnnnnnnnnn');
  });
});

describe('SerLCD display', () => {
  it('clears at start, then writes both padded lines with cursor positioning', async () => {
    const ports = new MockSerialPorts();
    ports.create('/dev/test-lcd');
    const display = await openSerLcd({ driver: 'serlcd', port: '/dev/test-lcd', baudRate: 9600 }, testDevices({ serialPortFactory: ports.factory }));
    await display.show('¡Hola, Íñigo!', 'Puerta abierta');
    const expected = Buffer.concat([
      SERLCD_CLEAR,
      Buffer.from([0xfe, 0x80]),
      Buffer.from('Hola, Inigo!    '),
      Buffer.from([0xfe, 0xc0]),
      Buffer.from('Puerta abierta  '),
    ]);
    await eventually(() => ports.written('/dev/test-lcd').equals(expected), 'the LCD bytes');
    expect(serlcdFrame('a', 'b').length).toBe(2 + 16 + 2 + 16);
    await display.close();
  });
});

describe('console display', () => {
  it('logs the two fitted lines', async () => {
    const lines: string[] = [];
    const display = await openConsoleDisplay({ driver: 'console' }, testDevices({ logger: { ...quiet, info: (line) => lines.push(line) } }));
    await display.show('Bienvenido a casa, amigo', 'ÑU');
    expect(lines).toEqual(['display [Bienvenido a cas] [NU              ]']);
  });
});
