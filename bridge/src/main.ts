#!/usr/bin/env node
import { parseCommandLine, USAGE, UsageError } from './cli.js';
import { ConfigError, redactConfig } from './config.js';
import { startBridge, type BridgeHandle } from './controller.js';
import { createConsoleLogger, errorMessage } from './logger.js';
import { withTimeout } from './timeout.js';

/** If a stop hangs (a wedged serial port), exit anyway: systemd will restart us. */
const STOP_GRACE_MS = 5000;

async function main(): Promise<void> {
  let command;
  try {
    command = await parseCommandLine(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n\n${error instanceof UsageError ? USAGE : ''}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (command.kind === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (command.kind === 'check') {
    process.stdout.write(`configuration OK:\n${JSON.stringify(redactConfig(command.config), null, 2)}\n`);
    return;
  }

  const { config } = command;
  const logger = createConsoleLogger(config.logLevel);
  let bridge: BridgeHandle | null = null;
  let exiting = false;
  const exit = (code: number) => {
    if (exiting) return;
    exiting = true;
    withTimeout(bridge?.stop() ?? Promise.resolve(), STOP_GRACE_MS, 'stop')
      .catch((error) => logger.error(`${errorMessage(error)}: exiting anyway`))
      .finally(() => process.exit(code));
  };

  process.on('SIGTERM', () => exit(0));
  process.on('SIGINT', () => exit(0));
  process.on('uncaughtException', (error) => {
    logger.error(`uncaught exception: ${error.stack ?? error.message}`);
    exit(1);
  });
  process.on('unhandledRejection', (reason) => {
    logger.error(`unhandled rejection: ${errorMessage(reason)}`);
    exit(1);
  });

  try {
    bridge = await startBridge(config, { logger, onFatal: () => exit(1) });
  } catch (error) {
    logger.error(`cannot start: ${errorMessage(error)}`);
    process.exit(1);
  }
  if (config.readers.some((reader) => reader.driver === 'keyboard')) {
    logger.info('type a card id (e.g. 004E2B4E or 0005122894), a PIN ending in # (482913#) or a QR token (LC1-...) and press Enter; Ctrl+C to stop');
  }
}

void main();
