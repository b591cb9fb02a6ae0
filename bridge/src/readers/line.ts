import { canonicalCardId, type CardTextFormat } from '../card-id.js';
import type { ReaderConfig } from '../config.js';
import type { CredentialListener, DeviceEnvironment, Reader } from '../devices.js';
import { LineSplitter, type LineResult } from './line-splitter.js';
import { openParsedSerialReader } from './parsed-input.js';

/**
 * One card id per line, hex or decimal, as USB/serial readers and
 * keyboard-wedge converters send it. See canonicalCardId for the rules.
 */
export class LineCardParser extends LineSplitter {
  constructor(private readonly format: CardTextFormat = 'auto') {
    super();
  }

  protected parseLine(line: string): LineResult {
    const card = canonicalCardId(line, this.format);
    return card === null ? { rejected: `not a card id: ${JSON.stringify(line.slice(0, 40))}` } : { card };
  }
}

export function openLineReader(
  config: Extract<ReaderConfig, { driver: 'line' }>,
  env: DeviceEnvironment,
  onCredential: CredentialListener,
): Promise<Reader> {
  return openParsedSerialReader(config, new LineCardParser(config.format), env, onCredential);
}
