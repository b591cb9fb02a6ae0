// Configuration, validated once at boot. A wrong value stops the app with a
// message naming the variable; README.md documents each one.
import { z } from "zod";
import { FACILITY_TYPES } from "~/db/schema-enums";
import { EMAIL_PATTERN } from "~/schemas/fields";

const optional = z.string().min(1).optional();

type FacilityType = (typeof FACILITY_TYPES)[number];
const LIMIT = /^([a-z-]+)=(\d{1,4})$/;

/** "gym=7,parking=1": a limit per facility type, each at least 1. */
const limitsByFacilityType = z.string().transform((value, context) => {
  const limits: Partial<Record<FacilityType, number>> = {};
  for (const entry of value.split(",").map((part) => part.trim()).filter(Boolean)) {
    const match = LIMIT.exec(entry);
    const type = match?.[1] as FacilityType | undefined;
    if (!match || !type || !FACILITY_TYPES.includes(type) || Number(match[2]) < 1) {
      context.addIssue({ code: "custom", message: `"${entry}": write type=number (at least 1), the type one of ${FACILITY_TYPES.join(", ")}` });
      return z.NEVER;
    }
    limits[type] = Number(match[2]);
  }
  return limits;
});

const timeOfDay = z.string().regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, "must be a time of day as HH:MM (00:00-23:59)");

/** "08:00-21:00" (or with an en dash): a span of a day, the end after the start. */
const hoursOfDay = z
  .string()
  .regex(/^([01][0-9]|2[0-3]):[0-5][0-9]\s*[-–]\s*([01][0-9]|2[0-3]):[0-5][0-9]$/, "must be HH:MM-HH:MM (e.g. 08:00-21:00)")
  .transform((value) => {
    const [from, to] = value.split(/\s*[-–]\s*/) as [string, string];
    return { from, to };
  })
  .refine(({ from, to }) => from < to, "the end must be after the start");

const envSchema = z.object({
  NODE_ENV: z.enum(["production", "development", "test"]).default("production"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATA_DIR: z.string().min(1).default("data"),
  // Unset: file:<DATA_DIR>/app.db.
  DATABASE_URL: z
    .string()
    .regex(/^(file:|libsql:|https?:|wss?:)/, "must start with file:, libsql:, http(s): or ws(s):")
    .optional(),
  DATABASE_AUTH_TOKEN: optional,
  SESSION_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  // The key store (docs/audit.md, "The key"): a folder outside DATA_DIR and
  // every backup that holds the audit trail's key, the chain's published head
  // and the generated session secret. Unset: <DATA_DIR>-keys beside DATA_DIR.
  KEYS_DIR: optional,
  // The audit trail's and the backups' HMAC key; unset, a random one is
  // generated once in KEYS_DIR/audit-key.
  AUDIT_KEY: z.string().min(32, "must be at least 32 characters (e.g. openssl rand -hex 32)").optional(),
  ADMIN_USERNAME: z.string().min(3).max(50).default("admin"),
  ADMIN_PASSWORD: z.string().min(8, "must be at least 8 characters").optional(),
  // The first admin's email: it must pass the app's own email rule, or the
  // admin could not save their profile without changing it.
  ADMIN_EMAIL: z
    .string()
    .max(254)
    .regex(EMAIL_PATTERN, "must be one email address (name@domain.tld)")
    .default("admin@lacasona-coliving.es")
    .transform((value) => value.toLowerCase()),
  SMTP_URL: z.string().regex(/^smtps?:\/\//, "must be an smtp:// or smtps:// URL").optional(),
  MAIL_FROM: z.string().min(3).default("La Casona Coliving <hola@lacasona-coliving.es>"),
  // Who hears of each new booking, enquiry, visit request and incident report.
  // Unset: those notices are kept in the outbox (data/outbox/).
  STAFF_EMAIL: z.string().email("must be an email address").optional(),
  MQTT_URL: z.string().regex(/^(mqtts?|wss?|tcp|ssl):\/\//, "must be an mqtt:// or mqtts:// URL").optional(),
  MQTT_USERNAME: optional,
  MQTT_PASSWORD: optional,
  MQTT_HOST: z.string().min(1).default("127.0.0.1"),
  MQTT_PORT: z.coerce.number().int().min(0).max(65535).default(1883),
  MQTT_TLS_PORT: z.coerce.number().int().min(0).max(65535).default(8883),
  MQTT_TLS_CERT: optional,
  MQTT_TLS_KEY: optional,
  MQTT_TOPIC_PREFIX: z.string().regex(/^[A-Za-z0-9_/-]{1,64}$/).default("coliving"),
  // External brokers only (docs/mqtt.md): the protocol the access service speaks
  // (5 adds message expiry and correlation data), its client id (one per
  // instance) and the shared-subscription group that splits swipes between instances.
  MQTT_PROTOCOL_VERSION: z.enum(["4", "5"]).default("5"),
  MQTT_CLIENT_ID: z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/).optional(),
  MQTT_SHARE_GROUP: z.string().regex(/^[A-Za-z0-9_-]{1,32}$/).optional(),
  ACCESS_SERVICE: z.enum(["on", "off"]).default("on"),
  // New password hashes' scrypt cost as log2 of N (15: N=32768, 32 MiB each).
  // Only the test suites lower it: each hash keeps its own N, so it is verified at its cost.
  PASSWORD_HASH_COST: z.coerce.number().int().min(10, "must be 10 to 20 (log2 of scrypt's N; keep 15 in production)").max(20, "must be 10 to 20 (log2 of scrypt's N; keep 15 in production)").default(15),
  BUILDING_NAME: z.string().min(1).max(80).default("La Casona Coliving"),
  PUBLIC_URL: z.string().url().optional(),
  // Behind reverse proxies: how many of them append to X-Forwarded-For ("true" = 1).
  TRUST_PROXY: z
    .string()
    .regex(/^(true|false|[0-9])$/, "must be true, false or the number of proxies (0-9)")
    .default("false")
    .transform((value) => (value === "true" ? 1 : value === "false" ? 0 : Number(value))),
  // Privacy: consultations (with their IP address) and closed public fault
  // reports older than this many months are deleted daily.
  RETENTION_MONTHS: z.coerce.number().int().min(1).max(120).default(12),
  // Door alarms (docs/mqtt.md, "Door alarms"): an alarm of a door and kind
  // raised within this many minutes of the notified one is counted as its
  // repeat, with no staff notice or incident of its own (0: every alarm is notified).
  DOOR_ALARM_REPEAT_MINUTES: z.coerce.number().int().min(0).max(1440).default(10),
  // The access log's rows older than this many months are deleted daily
  // (unset: the log is kept whole).
  ACCESS_LOG_RETENTION_MONTHS: z.coerce.number().int().min(1).max(240).optional(),
  // GET /metrics (docs/metrics.md) answers only a scraper that sends this as
  // its bearer token; unset, /metrics does not exist (404).
  METRICS_TOKEN: z
    .string()
    .regex(/^[A-Za-z0-9._~+/-]{16,256}=*$/, "must be 16 to 256 characters of A-Z a-z 0-9 . _ ~ + / - (e.g. openssl rand -hex 32)")
    .optional(),
  // Backups (README, "Copias de seguridad"): where the archives go (unset:
  // <DATA_DIR>/backups), the daily time in Europe/Madrid, how many are kept.
  BACKUP_DIR: optional,
  BACKUP_HOUR: z
    .string()
    .regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, "must be a time of day as HH:MM (00:00-23:59)")
    .default("03:30"),
  BACKUP_KEEP: z.coerce.number().int().min(1).max(1000).default(14),
  // The audit trail's events older than this many months are purged daily (docs/audit.md).
  AUDIT_RETENTION_MONTHS: z.coerce.number().int().min(1).max(240).default(24),
  // Per resident: bookings not over yet of each facility type (a booking of a
  // door-linked facility opens that door), overridable per type; and incidents
  // reported per day.
  MAX_ACTIVE_BOOKINGS: z.coerce.number().int().min(1).max(1000).default(3),
  MAX_ACTIVE_BOOKINGS_BY_TYPE: limitsByFacilityType.optional(),
  MAX_INCIDENTS_PER_DAY: z.coerce.number().int().min(1).max(1000).default(5),
  // Per resident: visitor passes not over yet and not cancelled (docs/access-keys.md).
  MAX_ACTIVE_VISITOR_PASSES: z.coerce.number().int().min(1).max(100).default(5),
  // Guests' pending bookings (issue 40; docs/configuration.md): a new booking
  // holds its place only once the guest confirms their email (`on`; `off`
  // holds at once, for a house that confirms by phone); an unconfirmed one
  // lapses after PENDING_EMAIL_MINUTES, one that holds and that the house has
  // not confirmed after PENDING_HOLD_HOURS; open pending stays are capped per
  // email and per client address a day; a stay longer than MAX_ONLINE_NIGHTS
  // is an enquiry, not a hold.
  BOOKING_EMAIL_CONFIRMATION: z.enum(["on", "off"]).default("on"),
  PENDING_EMAIL_MINUTES: z.coerce.number().int().min(5).max(7 * 24 * 60).default(60),
  PENDING_HOLD_HOURS: z.coerce.number().int().min(1).max(90 * 24).default(72),
  PENDING_PER_EMAIL: z.coerce.number().int().min(1).max(1000).default(2),
  PENDING_PER_ADDRESS: z.coerce.number().int().min(1).max(1000).default(3),
  MAX_ONLINE_NIGHTS: z.coerce.number().int().min(1).max(365).default(92),
  // Guests' stay keys (docs/access-keys.md), Europe/Madrid: a room stay's key
  // opens from the check-in day at CHECKIN_TIME to the check-out day at
  // CHECKOUT_TIME; a sala's, on each booked day during SALA_HOURS.
  CHECKIN_TIME: timeOfDay.default("15:00"),
  CHECKOUT_TIME: timeOfDay.default("11:00"),
  SALA_HOURS: hoursOfDay.prefault("08:00-21:00"),
});

export type Env = z.infer<typeof envSchema> & { PUBLIC_URL: string; DATABASE_URL: string };

export function parseEnv(source: Record<string, string | undefined>): Env {
  // An empty variable means "not set".
  const present = Object.fromEntries(
    Object.entries(source).filter(([, value]) => value !== undefined && value !== ""),
  );
  const result = envSchema.safeParse(present);
  if (!result.success) {
    const problems = result.error.issues
      .map((issue) => `  ${issue.path.join(".")}: ${issue.message}`)
      .join("\n");
    throw new Error(`Invalid configuration in environment variables:\n${problems}`);
  }
  return {
    ...result.data,
    PUBLIC_URL: result.data.PUBLIC_URL ?? `http://localhost:${result.data.PORT}`,
    // The database lives in the data directory unless told otherwise.
    DATABASE_URL: result.data.DATABASE_URL ?? `file:${result.data.DATA_DIR.replace(/\/+$/, "")}/app.db`,
  };
}

let cached: Env | undefined;

export function getEnv(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/** Tests change process.env between cases; this makes the next read see it. */
export function resetEnvForTests() {
  cached = undefined;
}
