import { canonicalCardId, type CardTextFormat } from '../card-id.js';
import { LineSplitter } from './line-splitter.js';

/**
 * One card id per line, hex or decimal, as USB/serial readers and
 * keyboard-wedge converters send it. See canonicalCardId for the rules.
 */
export class LineCardParser extends LineSplitter {
  constructor(private readonly format: CardTextFormat = 'auto') {
    super();
  }

  protected parseLine(line: string): { card: string } | { rejected: string } {
    const card = canonicalCardId(line, this.format);
    return card === null ? { rejected: `not a card id: ${JSON.stringify(line.slice(0, 40))}` } : { card };
  }
}
