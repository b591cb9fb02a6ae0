import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

const baudRate = z.number().int().positive().default(9600);
const serialPath = z.string().min(1, 'must be a serial port path such as /dev/ttyUSB0');
const cardTextFormat = z.enum(['auto', 'hex', 'decimal']).default('auto');

const readerSchema = z.discriminatedUnion('driver', [
  z.strictObject({ driver: z.literal('rdm6300'), port: serialPath, baudRate }),
  z.strictObject({ driver: z.literal('line'), port: serialPath, baudRate, format: cardTextFormat }),
  z.strictObject({
    driver: z.literal('wiegand'),
    port: serialPath,
    baudRate,
    /** Bit length of hex input; bit-string input carries its own length. */
    bits: z.union([z.literal(26), z.literal(34)]).default(26),
  }),
  /**
   * A keypad: "wiegand", key bursts (4 or 8 bits a key) from a Wiegand keypad
   * behind a Wiegand-to-serial converter, digits then "#" submit, "*" clears;
   * "line", a keypad that sends each PIN as a line.
   */
  z.strictObject({
    driver: z.literal('keypad'),
    port: serialPath,
    baudRate,
    input: z.enum(['wiegand', 'line']).default('wiegand'),
    /** Keys typed and not submitted are forgotten after this long without a key. */
    idleClearMs: z.number().int().min(100).max(120_000).default(10_000),
  }),
  /** A serial QR scanner: one token per line. */
  z.strictObject({ driver: z.literal('qr'), port: serialPath, baudRate }),
  /** Card ids (or a PIN ending in "#", or a QR token) typed on standard input (development, simulate mode). */
  z.strictObject({ driver: z.literal('keyboard'), format: cardTextFormat }),
]);

/** Most readers one door takes (a card reader, a keypad, a QR scanner, and one more). */
export const MAX_READERS = 4;

const displaySchema = z.discriminatedUnion('driver', [
  z.strictObject({ driver: z.literal('serlcd'), port: serialPath, baudRate }),
  z.strictObject({ driver: z.literal('console') }),
]);

const lockSchema = z.discriminatedUnion('driver', [
  z.strictObject({ driver: z.literal('lcus1'), port: serialPath, baudRate }),
  z.strictObject({
    driver: z.literal('gpio'),
    chip: z.string().min(1).default('gpiochip0'),
    line: z.number().int().nonnegative(),
    activeLow: z.boolean().default(false),
  }),
  z.strictObject({ driver: z.literal('console') }),
]);

/** The door-position switch (reed switch): a GPIO line, or a serial line sending OPEN / CLOSED. */
const contactSchema = z.discriminatedUnion('driver', [
  z.strictObject({
    driver: z.literal('gpio'),
    chip: z.string().min(1).default('gpiochip0'),
    line: z.number().int().nonnegative(),
    /** The line's level while the door is open (a reed switch to ground with the pull-up: high). */
    openWhen: z.enum(['high', 'low']).default('high'),
    bias: z.enum(['pull-up', 'pull-down', 'disable', 'as-is']).default('pull-up'),
  }),
  z.strictObject({ driver: z.literal('serial'), port: serialPath, baudRate }),
]);

const mqttSchema = z.strictObject({
  url: z
    .string()
    .refine((text) => URL.canParse(text) && /^(mqtts?|wss?):$/.test(new URL(text).protocol), {
      message: 'must be a URL such as mqtt://host:1883 or mqtts://host:8883',
    }),
  /** Defaults to doorId. */
  username: z.string().min(1).optional(),
  /** The door's secret. May instead come from the environment variable BRIDGE_PASSWORD. */
  password: z.string().min(1).optional(),
  /** PEM file of the CA that signed the broker's certificate (mqtts://). */
  caFile: z.string().min(1).optional(),
  topicPrefix: z
    .string()
    .regex(/^[^#+/]+(?:\/[^#+/]+)*$/, 'must be topic levels without wildcards or leading/trailing "/"')
    .default('coliving'),
  protocolVersion: z.union([z.literal(4), z.literal(5)]).default(4),
  reconnectMinMs: z.number().int().positive().default(1000),
  reconnectMaxMs: z.number().int().positive().default(30_000),
});

export const configSchema = z.strictObject({
  doorId: z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, 'must be 1-32 characters: letters, digits, "_" or "-"'),
  mqtt: mqttSchema,
  /** The door's reader; `readers` instead for several (card reader, keypad, QR scanner). Exactly one of the two. */
  reader: readerSchema.optional(),
  readers: z.array(readerSchema).min(1).max(MAX_READERS).optional(),
  display: displaySchema,
  lock: lockSchema,
  /** The door-position switch; unset: none (no contact reports, so no forced/held-open alarms). */
  contact: contactSchema.optional(),
  /**
   * An opening within this long after the lock was released (a grant) still
   * counts as released: the leaf moves just as the relay clicks back.
   */
  contactGraceMs: z.number().int().min(0).max(60_000).default(2000),
  /** Overrides the decision's unlockMs; also used for offline grants (3000 when unset). */
  unlockMs: z.number().int().min(100).max(60_000).optional(),
  decisionTimeoutMs: z.number().int().min(50).max(10_000).default(400),
  /** What to do when the app cannot be asked: "cache" = offline list, "deny" = refuse everyone. */
  offline: z.enum(['cache', 'deny']).default('cache'),
  dataDir: z.string().min(1).default('/var/lib/coliving-bridge'),
  /** Offline events without the app's receipt are sent again this often while connected (and on every connect). */
  eventResendMs: z.number().int().min(100).max(3_600_000).default(30_000),
  /** How long a decision stays on the display before it returns to idle. */
  displayHoldMs: z.number().int().min(100).max(60_000).default(3000),
  /** How often the door's unlock timetable is checked against the bridge's clock. */
  timetableCheckMs: z.number().int().min(10).max(60_000).default(1000),
  logLevel: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
}).superRefine((config, context) => {
  if (config.reader === undefined && config.readers === undefined) {
    context.addIssue({ code: 'custom', path: ['reader'], message: 'required: `reader`, or `readers` for several' });
  } else if (config.reader !== undefined && config.readers !== undefined) {
    context.addIssue({ code: 'custom', path: ['readers'], message: 'give `reader` or `readers`, not both' });
  }
  const seen = new Map<string, number>();
  (config.readers ?? []).forEach((reader, index) => {
    const where = 'port' in reader ? reader.port : 'stdin';
    const first = seen.get(where);
    if (first !== undefined) {
      context.addIssue({ code: 'custom', path: ['readers', index], message: `${where} is already used by readers.${first}` });
    }
    seen.set(where, index);
  });
});

export type BridgeConfigInput = z.input<typeof configSchema>;
type ParsedConfig = z.output<typeof configSchema>;
export type ReaderConfig = z.output<typeof readerSchema>;
/** The parsed config: `reader` becomes a list of one, so `readers` is always there. */
export type BridgeConfig = Omit<ParsedConfig, 'mqtt' | 'reader' | 'readers'> & {
  mqtt: ParsedConfig['mqtt'] & { username: string };
  readers: ReaderConfig[];
};
export type DisplayConfig = BridgeConfig['display'];
export type LockConfig = BridgeConfig['lock'];
export type ContactConfig = NonNullable<BridgeConfig['contact']>;

export class ConfigError extends Error {
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`Invalid configuration (${source}):\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Validates a configuration object and fills in defaults. Relative paths
 * (dataDir, mqtt.caFile) are resolved against baseDir.
 */
export function parseConfig(input: unknown, options: { baseDir?: string; source?: string } = {}): BridgeConfig {
  const result = configSchema.safeParse(input);
  if (!result.success) {
    throw new ConfigError(options.source ?? 'config', result.error.issues.map(describeIssue));
  }
  const { reader, readers, ...parsed } = result.data;
  const baseDir = options.baseDir ?? process.cwd();
  return {
    ...parsed,
    readers: readers ?? (reader === undefined ? [] : [reader]),
    dataDir: path.resolve(baseDir, parsed.dataDir),
    mqtt: {
      ...parsed.mqtt,
      username: parsed.mqtt.username ?? parsed.doorId,
      caFile: parsed.mqtt.caFile === undefined ? undefined : path.resolve(baseDir, parsed.mqtt.caFile),
    },
  };
}

/**
 * Reads and validates a JSON config file. mqtt.password may be left out of the
 * file and given in env.BRIDGE_PASSWORD instead (e.g. a systemd EnvironmentFile).
 */
export async function loadConfigFile(file: string, env: NodeJS.ProcessEnv = process.env): Promise<BridgeConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError(file, [`cannot read the file: ${(error as Error).message}`]);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(file, [`not valid JSON: ${(error as Error).message}`]);
  }
  return parseConfig(withPasswordFromEnv(raw, env), { baseDir: path.dirname(path.resolve(file)), source: file });
}

export function withPasswordFromEnv(raw: unknown, env: NodeJS.ProcessEnv): unknown {
  const password = env.BRIDGE_PASSWORD;
  if (password === undefined || password === '' || !isRecord(raw) || !isRecord(raw.mqtt)) return raw;
  if (raw.mqtt.password !== undefined) return raw;
  return { ...raw, mqtt: { ...raw.mqtt, password } };
}

/** A copy safe to log: the password and any credentials in the URL are masked. */
export function redactConfig(config: BridgeConfig): BridgeConfig {
  return {
    ...config,
    mqtt: {
      ...config.mqtt,
      url: redactUrl(config.mqtt.url),
      password: config.mqtt.password === undefined ? undefined : '***',
    },
  };
}

export function redactUrl(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  if (parsed.password !== '') parsed.password = '***';
  return parsed.toString();
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => `${where === '' ? key : `${where}.${key}`}: unknown field`).join('\n  - ');
  }
  if (issue.code === 'invalid_union' && 'options' in issue && Array.isArray(issue.options)) {
    return `${where}: must be one of ${issue.options.map((option) => JSON.stringify(option)).join(', ')}`;
  }
  if (issue.code === 'invalid_type' && issue.input === undefined) {
    return `${where}: required (${issue.expected})`;
  }
  return `${where === '' ? '(top level)' : where}: ${issue.message}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
