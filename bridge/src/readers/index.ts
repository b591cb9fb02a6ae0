import type { Readable, Transform } from 'node:stream';
import type { ReaderConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { openSerialPort, type SerialPortFactory } from '../serial.js';
import { LineCardParser } from './line.js';
import { Rdm6300Parser } from './rdm6300.js';
import { WiegandParser } from './wiegand.js';

export interface CardReader {
  readonly driver: ReaderConfig['driver'];
  /** Called with each canonical card id read (repeats included; the controller filters them). */
  onCard(listener: (card: string) => void): void;
  close(): Promise<void>;
}

export interface ReaderEnvironment {
  serialPortFactory: SerialPortFactory;
  /** Input of the keyboard reader. */
  stdin: Readable;
  logger: Logger;
  onLost: (error: Error) => void;
}

export async function openReader(config: ReaderConfig, env: ReaderEnvironment): Promise<CardReader> {
  if (config.driver === 'keyboard') {
    const parser = new LineCardParser(config.format);
    env.stdin.pipe(parser);
    return readerOn(config.driver, parser, env.logger, async () => {
      env.stdin.unpipe(parser);
      env.stdin.pause();
    });
  }
  const parser: Transform =
    config.driver === 'rdm6300'
      ? new Rdm6300Parser()
      : config.driver === 'line'
        ? new LineCardParser(config.format)
        : new WiegandParser(config.bits);
  const port = await openSerialPort(env.serialPortFactory, { path: config.port, baudRate: config.baudRate }, env.onLost);
  port.connection.pipe(parser);
  return readerOn(config.driver, parser, env.logger, async () => {
    port.connection.unpipe(parser);
    await port.close();
  });
}

function readerOn(
  driver: ReaderConfig['driver'],
  parser: Transform,
  logger: Logger,
  close: () => Promise<void>,
): CardReader {
  parser.on('reject', (reason: string) => logger.warn(`reader ${driver}: rejected input: ${reason}`));
  return {
    driver,
    onCard: (listener) => parser.on('data', (card: string) => listener(card)),
    close,
  };
}
