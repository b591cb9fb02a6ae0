import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfigFile, parseConfig, type BridgeConfig } from './config.js';

export const USAGE = `Usage:
  coliving-bridge --config <config.json> [--check]
      Run a door with the drivers of the config file.
      --check: only validate the file and print it (password masked).
  coliving-bridge --simulate --door <doorId> [--url mqtt://127.0.0.1:1883] [--password <secret>]
      Keyboard reader (type a card id, a PIN ending in # or a QR token, then Enter),
      console lock and display.
      The password may also come from the environment variable BRIDGE_PASSWORD.
      Data is kept in bridge/data/<doorId>.

Options:
  --log-level <debug|info|warn|error>   overrides the config (default info)
  --help                                this text`;

export type Command = { kind: 'help' } | { kind: 'run'; config: BridgeConfig } | { kind: 'check'; config: BridgeConfig };

export class UsageError extends Error {
  override name = 'UsageError';
}

/** Where simulate mode keeps its data: bridge/data/<door> (src/ and dist/ both sit in bridge/). */
export function simulateDataDir(doorId: string): string {
  return fileURLToPath(new URL(`../data/${doorId}`, import.meta.url));
}

export async function parseCommandLine(argv: string[], env: NodeJS.ProcessEnv): Promise<Command> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        config: { type: 'string' },
        simulate: { type: 'boolean' },
        door: { type: 'string' },
        url: { type: 'string' },
        password: { type: 'string' },
        'log-level': { type: 'string' },
        check: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help === true) return { kind: 'help' };

  const logLevel = values['log-level'];
  if (values.simulate === true) {
    if (values.config !== undefined) throw new UsageError('--simulate and --config exclude each other');
    if (values.check === true) throw new UsageError('--check is for --config');
    if (values.door === undefined) throw new UsageError('--simulate needs --door <doorId>');
    const config = parseConfig(
      {
        doorId: values.door,
        mqtt: { url: values.url ?? 'mqtt://127.0.0.1:1883', password: values.password ?? (env.BRIDGE_PASSWORD || undefined) },
        reader: { driver: 'keyboard' },
        display: { driver: 'console' },
        lock: { driver: 'console' },
        dataDir: /^[A-Za-z0-9_-]{1,32}$/.test(values.door) ? simulateDataDir(values.door) : undefined,
        ...(logLevel === undefined ? {} : { logLevel }),
      },
      { source: 'command line' },
    );
    return { kind: 'run', config };
  }

  if (values.config === undefined) throw new UsageError('give --config <file.json> or --simulate --door <doorId>');
  for (const option of ['door', 'url', 'password'] as const) {
    if (values[option] !== undefined) throw new UsageError(`--${option} is for --simulate; put it in the config file`);
  }
  const fileConfig = await loadConfigFile(values.config, env);
  const config = logLevel === undefined ? fileConfig : parseConfig({ ...fileConfig, logLevel }, { source: '--log-level' });
  return { kind: values.check === true ? 'check' : 'run', config };
}
