// Start-up, run once per process when the server build is loaded: validate
// the configuration, migrate, make sure an admin exists, start background work.
import path from "node:path";
import { closeAccessNotifier, mqttAccessNotifier, noAccessNotifier, useAccessNotifier } from "~/access/notify.server";
import { startAccessProcess, type AccessProcessHandle } from "~/access/process.server";
import { purgeExpiredApiTokens } from "~/models/api-token.server";
import { purgeAccessLogsBefore } from "~/models/access-log-query.server";
import { purgeBuildingReadingsOlderThan } from "~/models/building-reading.server";
import { purgeExpiredCaptchas } from "~/models/captcha.server";
import { purgeExpiredRateLimits } from "~/models/rate-limit.server";
import { purgeExpiredSessions } from "~/models/session.server";
import { countAdmins, createUser } from "~/models/user.server";
import { scheduleDailyBackups } from "~/services/backups.server";
import { scheduleDoorAlarmPolls } from "~/services/door-alarms.server";
import { scheduleVisitorArrivalPolls } from "~/services/visitor-passes.server";
import { scheduleHoldReleases } from "~/services/pending-holds.server";
import { audited, purgeAuditTrail, SYSTEM_ACTOR } from "~/services/audit.server";
import { purgeOldConsultations } from "~/services/consultations.server";
import { purgeOldPublicIncidents } from "~/services/incidents.server";
import { sendCardExpiryWarnings } from "~/services/notifications.server";
import { sweepOrphanPhotos } from "~/services/resident-incidents.server";
import { hashPassword, randomToken } from "~/utils/crypto.server";
import { monthsBefore } from "~/utils/dates";
import { claimDataDir } from "~/utils/data-dir-claim.server";
import { getSessionSecret } from "~/utils/data-dir.server";
import { getDb, migrateDatabase } from "~/utils/db.server";
import { getEnv } from "~/utils/env.server";
import { seedHolidays } from "~/services/holidays.server";
import { installHttpEdge } from "~/utils/http-edge.server";
import { addMetricsSource, startProcessMetrics } from "~/utils/metrics.server";
import { useSpanishValidationMessages } from "~/utils/validation-locale.server";

export async function ensureAdmin() {
  if ((await countAdmins()) > 0) return;
  const env = getEnv();
  const password = env.ADMIN_PASSWORD ?? randomToken(12);
  const passwordHash = await hashPassword(password);
  await audited(
    async (audit) => {
      const admin = await createUser({ username: env.ADMIN_USERNAME, email: env.ADMIN_EMAIL, passwordHash, role: "admin", firstName: "Administración" });
      audit({
        action: "user.create",
        entityType: "user",
        entityId: admin.id,
        summary: `creó el primer administrador ${admin.username}`,
        after: { username: admin.username, email: admin.email, role: admin.role, status: admin.status },
      });
    },
    { actor: SYSTEM_ACTOR, ip: null },
  );
  if (env.ADMIN_PASSWORD) {
    console.info(`[boot] admin user "${env.ADMIN_USERNAME}" created with ADMIN_PASSWORD`);
  } else {
    // Printed once: the database keeps only its hash.
    console.info(
      `\n[boot] admin user created. Sign in at /login with\n    username: ${env.ADMIN_USERNAME}\n    password: ${password}\n  (shown only now; set ADMIN_PASSWORD to choose it)\n`,
    );
  }
}

/** How long the building sensor's readings are kept. */
export const BUILDING_READING_RETENTION_MS = 30 * 24 * 3600_000;

/** Rows that only matter for a while: rate-limit windows, sessions, API tokens, anti-spam questions, old sensor readings. */
export async function purgeExpired(now = Date.now()) {
  await Promise.all([
    purgeExpiredRateLimits(now),
    purgeExpiredSessions(new Date(now)),
    purgeExpiredApiTokens(now),
    purgeExpiredCaptchas(now),
    purgeBuildingReadingsOlderThan(new Date(now - BUILDING_READING_RETENTION_MS)),
  ]).catch((error) => console.error("[boot] purge failed", error));
}

/** Work that runs every few minutes in every web process (each job is safe to run concurrently). */
export async function runPeriodicJobs(now = new Date()) {
  await purgeExpired(now.getTime());
  // SPEC §9: residents hear of a card expiring within 7 days, once per card and expiry.
  await sendCardExpiryWarnings(now).catch((error) => console.error("[boot] card expiry warnings failed", error));
}

/**
 * Privacy (the /privacidad page says so): consultations with their IP
 * address, and closed public fault reports, once older than
 * RETENTION_MONTHS; and, when ACCESS_LOG_RETENTION_MONTHS is set, the access
 * log's older rows. Idempotent; runs at start and then daily.
 */
export async function purgeRetainedData(now = new Date()) {
  const before = monthsBefore(now, getEnv().RETENTION_MONTHS);
  const logMonths = getEnv().ACCESS_LOG_RETENTION_MONTHS;
  try {
    const [consultations, incidents] = await Promise.all([purgeOldConsultations(before), purgeOldPublicIncidents(before)]);
    if (consultations || incidents) {
      console.info(`[boot] retention: deleted ${consultations} consultations and ${incidents} closed fault reports from before ${before.toISOString()}`);
    }
    if (logMonths === undefined) return { consultations, incidents };
    const logsBefore = monthsBefore(now, logMonths);
    const accessLogs = await purgeAccessLogsBefore(logsBefore);
    if (accessLogs) console.info(`[boot] retention: deleted ${accessLogs} access log rows from before ${logsBefore.toISOString()}`);
    return { consultations, incidents, accessLogs };
  } catch (error) {
    console.error("[boot] retention purge failed", error);
    return null;
  }
}

/** The audit trail's retention (AUDIT_RETENTION_MONTHS, docs/audit.md); runs at start and then daily. */
export async function purgeOldAuditEvents(now = new Date()) {
  try {
    const { deleted } = await purgeAuditTrail(now);
    if (deleted) console.info(`[boot] audit retention: purged ${deleted} events`);
  } catch (error) {
    console.error("[boot] audit retention purge failed", error);
  }
}

/** Photo files left by a report that crashed before its row was stored (see sweepOrphanPhotos). */
export async function removeOrphanPhotos(now = new Date()) {
  try {
    const removed = await sweepOrphanPhotos(now);
    if (removed) console.info(`[boot] deleted ${removed} incident photo files that no incident refers to`);
    return removed;
  } catch (error) {
    console.error("[boot] incident photo sweep failed", error);
    return null;
  }
}

const DAY_MS = 24 * 3600_000;

export async function boot() {
  const env = getEnv();
  useSpanishValidationMessages();
  startProcessMetrics("web");
  installHttpEdge();
  getSessionSecret();
  // `npm run restore` refuses while a process has claimed the data directory.
  claimDataDir(env.DATA_DIR);
  await migrateDatabase(getDb(), path.resolve("drizzle"));
  await ensureAdmin();
  // A fresh install's holidays (Spain and Asturias, this year and the next), once.
  await seedHolidays();
  void runPeriodicJobs();
  setInterval(() => void runPeriodicJobs(), 10 * 60_000).unref();
  void purgeRetainedData();
  void removeOrphanPhotos();
  setInterval(() => {
    void purgeRetainedData();
    void removeOrphanPhotos();
  }, DAY_MS).unref();
  // One backup a day at BACKUP_HOUR, Europe/Madrid (app/services/backups.server.ts).
  scheduleDailyBackups();
  // Door alarms raised by the access service: notices, incidents, live dashboards.
  scheduleDoorAlarmPolls();
  // A visitor pass's first use: 'Tu visita … ha llegado' to its resident.
  scheduleVisitorArrivalPolls();
  // Guests' pending bookings whose time ran out: recorded as released, guest and house told (issue 40).
  scheduleHoldReleases();
  void purgeOldAuditEvents();
  setInterval(() => void purgeOldAuditEvents(), DAY_MS).unref();
  console.info(`[boot] ${env.BUILDING_NAME}: database ready (${env.DATABASE_URL.split("?")[0]})`);
  // The broker and the door decisions run in a child process of this one
  // (app/access/process.server.ts) unless ACCESS_SERVICE=off (then
  // `npm run start:access` runs them elsewhere).
  const access = env.ACCESS_SERVICE === "on" ? await startAccessProcess() : null;
  if (access) console.info(`[boot] access service running in its own process (pid ${access.pid()})`);
  // GET /metrics carries the child's series too, read over its channel on each scrape.
  if (access) addMetricsSource("access", access.metrics);
  // The services' change notifications go to that child over its channel, or,
  // when the access service runs elsewhere, over the external broker
  // (app/access/notify.server.ts).
  useAccessNotifier(
    access
      ? access.notifier
      : env.MQTT_URL
        ? mqttAccessNotifier({
            url: env.MQTT_URL,
            username: env.MQTT_USERNAME,
            password: env.MQTT_PASSWORD,
            protocolVersion: env.MQTT_PROTOCOL_VERSION === "4" ? 4 : 5,
            prefix: env.MQTT_TOPIC_PREFIX,
          })
        : noAccessNotifier,
  );
  stopAccessOnSignals(access);
}

/** remix-serve closes its HTTP server on these signals; the access service stops beside it. */
function stopAccessOnSignals(access: AccessProcessHandle | null) {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      setTimeout(() => process.exit(0), 10_000).unref();
      Promise.all([access?.stop(), closeAccessNotifier()]).catch((error: unknown) =>
        console.error("[boot] access service stop failed", error),
      );
    });
  }
}

const globalForBoot = globalThis as unknown as { __boot?: Promise<void> };

export function bootOnce() {
  globalForBoot.__boot ??= boot();
  return globalForBoot.__boot;
}
