// Backups that restore (docs/operations.md, "Backups"). Each backup is one
// .tar.gz in BACKUP_DIR (default <DATA_DIR>/backups) named by the UTC time it
// began and how it was made (app/schemas/backup.ts), holding:
//   manifest.json  format, time, trigger, app version, last applied migration,
//                  and the size and SHA-256 of every other file
//   app.db         a consistent copy of the database (VACUUM INTO, taken while
//                  the app keeps writing: app/models/database-snapshot.server.ts)
//   uploads/       the residents' incident photos
//   manifest.sig   HMAC-SHA256 of manifest.json's bytes with the backup key
//                  (derived from the audit key, kept outside DATA_DIR and every
//                  archive: app/utils/keys.server.ts) and that key's id; a
//                  restore refuses an archive it does not verify
// The archive is written 0600 under a dot-name and renamed when complete, so the
// folder never lists half an archive. One backup runs at a time per folder
// (a lock file naming its process). After each backup only the newest
// BACKUP_KEEP archives are kept. A failed backup is remembered
// (<DATA_DIR>/backup-failure.json, shown on /admin/copias) and sent to the
// staff. The web process makes one every day at BACKUP_HOUR, Europe/Madrid
// (scheduleDailyBackups, started at boot); `npm run backup` makes one from the
// command line; `npm run restore` puts one back (backup-restore.server.ts).
// Making an archive and downloading one each leave an audit event
// (backup.create, backup.download).
import { createHash, createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { createReadStream, existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import * as tar from "tar";
import { z } from "zod";
import { backupFailedStaffMail } from "~/mail/staff-mail.server";
import { copyDatabaseInto } from "~/models/database-snapshot.server";
import { BACKUP_TRIGGERS, backupName, formatBytes, parseBackupName, type BackupTrigger } from "~/schemas/backup";
import { isProcessAlive } from "~/utils/data-dir-claim.server";
import { dataPath } from "~/utils/data-dir.server";
import { addDays, madridInstant, todayInMadrid } from "~/utils/dates";
import type { Download } from "~/utils/download.server";
import { getEnv } from "~/utils/env.server";
import { trySendStaffNotice } from "~/utils/mail.server";
import { backupSigningKey } from "~/utils/keys.server";
import { refuse, type Refusal, type Result } from "~/utils/refusal.server";
import { audited, currentRequester, SYSTEM_ACTOR, type AuditEntry } from "./audit.server";

export const MANIFEST_FILE = "manifest.json";
export const DATABASE_FILE = "app.db";
export const UPLOADS_DIRECTORY = "uploads";
export const SIGNATURE_FILE = "manifest.sig";
const LOCK_FILE = ".backup.lock";
const PARTIAL_PREFIX = ".partial-";
const FAILURE_FILE = "backup-failure.json";

export const REMOTE_DATABASE_MESSAGE =
  "La base de datos es remota (DATABASE_URL no es file:): sus copias de seguridad son tarea del servidor remoto";
const IN_PROGRESS_MESSAGE = "Ya se está haciendo una copia de seguridad. Espera a que termine.";
const ALREADY_MADE_MESSAGE = "Esa copia de seguridad ya existe";
const NOT_FOUND_MESSAGE = "Copia de seguridad no encontrada";

export type BackupInfo = { name: string; createdAt: Date; sizeBytes: number; trigger: BackupTrigger };
export type BackupFailureRecord = { at: Date; trigger: BackupTrigger; message: string };
/** A backup that was tried and failed (disk full, folder gone): recorded and sent to the staff. */
export type BackupFailure = { ok: false; failed: true; message: string };

export const ManifestSchema = z.object({
  format: z.literal(1),
  createdAt: z.iso.datetime(),
  trigger: z.enum(BACKUP_TRIGGERS),
  appVersion: z.string(),
  migration: z.object({ tag: z.string().nullable(), createdAt: z.number() }).nullable(),
  files: z.array(z.object({ path: z.string().min(1), size: z.number().int().nonnegative(), sha256: z.string().regex(/^[0-9a-f]{64}$/) })),
});
export type Manifest = z.infer<typeof ManifestSchema>;

/** manifest.sig: which key signed the manifest, and the HMAC-SHA256 (hex) of its bytes. */
export const SignatureSchema = z.object({
  algorithm: z.literal("HMAC-SHA256"),
  keyId: z.string().regex(/^[0-9a-f]{16}$/),
  mac: z.string().regex(/^[0-9a-f]{64}$/),
});
export type Signature = z.infer<typeof SignatureSchema>;

function manifestMac(key: Buffer, manifestBytes: Buffer) {
  return createHmac("sha256", key).update(manifestBytes).digest("hex");
}

/** The signature of a manifest's bytes with this installation's backup key (created on first use). */
export function signManifest(manifestBytes: Buffer): Signature {
  const signing = backupSigningKey({ create: true })!;
  return { algorithm: "HMAC-SHA256", keyId: signing.keyId, mac: manifestMac(signing.key, manifestBytes) };
}

/**
 * Whether this installation's key signed these manifest bytes: `ok`,
 * `other-key` (another installation's, or this one's before its key
 * changed), `bad` (a signature that does not match: the manifest was
 * changed), `no-key` (this installation has none).
 */
export function checkManifestSignature(manifestBytes: Buffer, signature: Signature | null): "ok" | "unsigned" | "other-key" | "bad" | "no-key" {
  if (!signature) return "unsigned";
  const signing = backupSigningKey({ create: false });
  if (!signing) return "no-key";
  if (signature.keyId !== signing.keyId) return "other-key";
  const expected = Buffer.from(manifestMac(signing.key, manifestBytes), "hex");
  return timingSafeEqual(expected, Buffer.from(signature.mac, "hex")) ? "ok" : "bad";
}

/** The JSON API's shape of a backup. */
export function toBackupJson(backup: BackupInfo) {
  return { name: backup.name, createdAt: backup.createdAt.toISOString(), sizeBytes: backup.sizeBytes, trigger: backup.trigger };
}

export function backupDirectory() {
  return path.resolve(getEnv().BACKUP_DIR ?? dataPath("backups"));
}

/** The database's file when DATABASE_URL is a `file:` URL; null for a remote database. */
export function databaseFile(): string | null {
  const url = getEnv().DATABASE_URL;
  if (!url.startsWith("file:")) return null;
  const file = url.slice("file:".length).split("?")[0]!;
  return file && file !== ":memory:" ? path.resolve(file) : null;
}

/** The migrations this code knows (drizzle/meta/_journal.json): tag and drizzle's created_at. */
export function knownMigrations(): Array<{ tag: string; when: number }> {
  const journal = JSON.parse(readFileSync(path.resolve("drizzle", "meta", "_journal.json"), "utf8")) as { entries: Array<{ tag: string; when: number }> };
  return journal.entries.map(({ tag, when }) => ({ tag, when }));
}

function appVersion() {
  try {
    return String((JSON.parse(readFileSync(path.resolve("package.json"), "utf8")) as { version?: string }).version ?? "unknown");
  } catch {
    return "unknown";
  }
}

/** Every archive in the folder, newest first (other files are never listed). */
export async function listBackups(): Promise<BackupInfo[]> {
  const directory = backupDirectory();
  let names: string[];
  try {
    names = await fs.readdir(directory);
  } catch (error) {
    // No folder (yet, or a path that is not one: that backup failed and says so).
    if (["ENOENT", "ENOTDIR"].includes((error as NodeJS.ErrnoException).code ?? "")) return [];
    throw error;
  }
  const backups: BackupInfo[] = [];
  for (const name of names) {
    const parsed = parseBackupName(name);
    if (!parsed) continue;
    const stat = await fs.stat(path.join(directory, name)).catch(() => null);
    if (stat?.isFile()) backups.push({ name, ...parsed, sizeBytes: stat.size });
  }
  return backups.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.name.localeCompare(a.name));
}

let failureInMemory: BackupFailureRecord | null = null;

const FailureSchema = z.object({ at: z.iso.datetime(), trigger: z.enum(BACKUP_TRIGGERS), message: z.string() });

/** The last backup that failed (in any process of this data directory), or null. */
export async function lastBackupFailure(): Promise<BackupFailureRecord | null> {
  let stored: BackupFailureRecord | null = null;
  try {
    const parsed = FailureSchema.safeParse(JSON.parse(await fs.readFile(dataPath(FAILURE_FILE), "utf8")));
    if (parsed.success) stored = { ...parsed.data, at: new Date(parsed.data.at) };
  } catch {
    // none yet, or it could not be written: this process's own memory below
  }
  if (!stored) return failureInMemory;
  if (!failureInMemory) return stored;
  return stored.at >= failureInMemory.at ? stored : failureInMemory;
}

/**
 * For monitoring (issue 26, metrics): when the newest archive was made and
 * its size, and when a backup last failed.
 */
export async function backupStatus() {
  const [[newest], failure] = await Promise.all([listBackups(), lastBackupFailure()]);
  return {
    lastSuccessAt: newest?.createdAt ?? null,
    lastSuccessSizeBytes: newest?.sizeBytes ?? null,
    lastFailureAt: failure?.at ?? null,
  };
}

function describeError(error: unknown) {
  const { message, code } = error as NodeJS.ErrnoException;
  const text = message || String(error);
  return code && !text.includes(code) ? `${code}: ${text}` : text;
}

async function recordFailure(trigger: BackupTrigger, error: unknown, directory: string): Promise<BackupFailure> {
  const failure: BackupFailureRecord = { at: new Date(), trigger, message: describeError(error) };
  failureInMemory = failure;
  console.error(`[backup] ${trigger} backup into ${directory} failed: ${failure.message}`);
  try {
    const file = dataPath(FAILURE_FILE);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(`${file}.tmp`, JSON.stringify({ ...failure, at: failure.at.toISOString() }));
    await fs.rename(`${file}.tmp`, file);
  } catch (writeError) {
    console.error(`[backup] could not record the failure: ${describeError(writeError)}`);
  }
  await trySendStaffNotice(backupFailedStaffMail({ ...failure, directory }));
  return { ok: false, failed: true, message: failure.message };
}

/**
 * Takes the folder's lock; null while another live process (or this one)
 * holds it. The lock appears whole: written under a name of its own, then
 * hard-linked to LOCK_FILE (which fails if it exists). A lock created empty
 * and then written could be read in between, taken for one left by a dead
 * process, and removed under its holder.
 */
async function takeLock(directory: string): Promise<(() => Promise<void>) | null> {
  const file = path.join(directory, LOCK_FILE);
  const draft = `${file}.${process.pid}.${randomUUID()}`;
  await fs.writeFile(draft, JSON.stringify({ pid: process.pid, at: new Date().toISOString() }));
  try {
    return await linkLock(draft, file);
  } finally {
    await fs.rm(draft, { force: true });
  }
}

async function linkLock(draft: string, file: string): Promise<(() => Promise<void>) | null> {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      await fs.link(draft, file).catch(async (error: NodeJS.ErrnoException) => {
        // A folder on a disk without hard links: created, then written.
        if (error.code !== "EPERM" && error.code !== "ENOTSUP") throw error;
        await fs.writeFile(file, await fs.readFile(draft), { flag: "wx" });
      });
      return () => fs.rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = await fs
        .readFile(file, "utf8")
        .then((text) => Number((JSON.parse(text) as { pid?: unknown }).pid))
        .catch(() => NaN);
      if (Number.isSafeInteger(holder) && holder > 0 && isProcessAlive(holder)) return null;
      // Left by a process that died mid-backup.
      await fs.rm(file, { force: true });
    }
  }
  return null;
}

/** Hard links (the photos are never changed in place) or, across disks, copies of the photos. */
async function stageUploads(from: string, to: string) {
  await fs.mkdir(to, { recursive: true });
  let entries;
  try {
    entries = await fs.readdir(from, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  for (const entry of entries) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      await stageUploads(source, target);
    } else if (entry.isFile()) {
      try {
        await fs.link(source, target);
      } catch {
        // A photo deleted since the folder was read went after the backup began: not in it.
        await fs.copyFile(source, target).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== "ENOENT") throw error;
        });
      }
    }
  }
}

async function sha256Of(file: string) {
  const hash = createHash("sha256");
  await pipeline(createReadStream(file), hash);
  return hash.digest("hex");
}

/** Every file under `root` (posix paths relative to it) with its size and SHA-256. */
export async function describeFiles(root: string, relative = ""): Promise<Manifest["files"]> {
  const files: Manifest["files"] = [];
  const entries = await fs.readdir(path.join(root, relative), { withFileTypes: true });
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const name = relative ? `${relative}/${entry.name}` : entry.name;
    if (entry.isDirectory()) files.push(...(await describeFiles(root, name)));
    else {
      const file = path.join(root, name);
      files.push({ path: name, size: (await fs.stat(file)).size, sha256: await sha256Of(file) });
    }
  }
  return files;
}

async function syncPath(file: string) {
  const handle = await fs.open(file, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function writeArchive(directory: string, name: string, createdAt: Date, trigger: BackupTrigger, databaseUrl: string): Promise<BackupInfo & { files: number }> {
  const staging = path.join(directory, `${PARTIAL_PREFIX}${name}.d`);
  const partial = path.join(directory, `${PARTIAL_PREFIX}${name}`);
  try {
    await fs.mkdir(staging, { mode: 0o700 });
    const copy = await copyDatabaseInto(databaseUrl, path.join(staging, DATABASE_FILE));
    if (copy.integrity.join("\n") !== "ok") throw new Error(`the database copy failed its integrity check: ${copy.integrity.slice(0, 3).join("; ")}`);
    await stageUploads(dataPath(UPLOADS_DIRECTORY), path.join(staging, UPLOADS_DIRECTORY));
    const known = copy.lastMigrationAt === null ? undefined : knownMigrations().find((migration) => migration.when === copy.lastMigrationAt);
    const manifest: Manifest = {
      format: 1,
      createdAt: createdAt.toISOString(),
      trigger,
      appVersion: appVersion(),
      migration: copy.lastMigrationAt === null ? null : { tag: known?.tag ?? null, createdAt: copy.lastMigrationAt },
      files: await describeFiles(staging),
    };
    const manifestBytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
    await fs.writeFile(path.join(staging, MANIFEST_FILE), manifestBytes);
    await fs.writeFile(path.join(staging, SIGNATURE_FILE), `${JSON.stringify(signManifest(manifestBytes))}\n`);
    // Only its owner reads an archive (the personal data of the house): created 0600 before tar writes into it.
    await fs.writeFile(partial, "", { mode: 0o600 });
    await fs.chmod(partial, 0o600);
    await tar.c({ gzip: true, cwd: staging, file: partial, portable: true }, [MANIFEST_FILE, DATABASE_FILE, UPLOADS_DIRECTORY, SIGNATURE_FILE]);
    await syncPath(partial);
    const final = path.join(directory, name);
    await fs.rename(partial, final);
    await syncPath(directory);
    return { name, createdAt, trigger, sizeBytes: (await fs.stat(final)).size, files: manifest.files.length };
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
    await fs.rm(partial, { force: true });
  }
}

/** Removes what a backup that died halfway left (only called while holding the lock). */
async function removeLeftovers(directory: string) {
  for (const name of await fs.readdir(directory)) {
    if (name.startsWith(PARTIAL_PREFIX)) await fs.rm(path.join(directory, name), { recursive: true, force: true });
    // A lock's draft (takeLock) left by a process that died before removing it.
    const draftPid = name.startsWith(`${LOCK_FILE}.`) ? Number(name.split(".")[3]) : NaN;
    if (Number.isSafeInteger(draftPid) && !isProcessAlive(draftPid)) await fs.rm(path.join(directory, name), { force: true });
  }
}

/** Keeps the newest `keep` archives; answers the names it removed. */
async function rotate(keep: number) {
  const old = (await listBackups()).slice(keep);
  for (const backup of old) await fs.rm(path.join(backupDirectory(), backup.name), { force: true });
  return old.map((backup) => backup.name);
}

/**
 * Makes one backup now, named by `at` (default: now; a scheduled backup
 * passes its slot, so two processes make one archive per slot). A refusal
 * when the database is remote, another backup is running or that archive
 * exists; a BackupFailure (recorded, sent to the staff) when it could not be
 * made.
 */
export async function createBackup(
  trigger: BackupTrigger,
  { at }: { at?: Date } = {},
): Promise<Result<{ backup: BackupInfo; removed: string[] }> | BackupFailure> {
  if (!databaseFile()) return refuse(409, REMOTE_DATABASE_MESSAGE);
  const directory = backupDirectory();
  const who = currentRequester();
  let release: (() => Promise<void>) | null;
  try {
    await fs.mkdir(directory, { recursive: true, mode: 0o700 });
    release = await takeLock(directory);
  } catch (error) {
    return recordFailure(trigger, error, directory);
  }
  if (!release) return refuse(409, IN_PROGRESS_MESSAGE);
  try {
    await removeLeftovers(directory);
    const createdAt = at ?? new Date();
    const name = backupName(createdAt, trigger);
    if (existsSync(path.join(directory, name))) return refuse(409, ALREADY_MADE_MESSAGE);
    const { files, ...backup } = await writeArchive(directory, name, createdAt, trigger, getEnv().DATABASE_URL);
    const removed = await rotate(getEnv().BACKUP_KEEP);
    console.info(`[backup] ${backup.name} (${backup.sizeBytes} bytes) in ${directory}${removed.length ? `; removed ${removed.join(", ")}` : ""}`);
    await recordBackupEvent(
      {
        action: "backup.create",
        entityType: "backup",
        entityId: backup.name,
        summary: `creó la copia de seguridad ${backup.name} (${formatBytes(backup.sizeBytes)})`,
        after: { name: backup.name, trigger, sizeBytes: backup.sizeBytes, files, removed },
      },
      trigger === "manual" ? who : { actor: SYSTEM_ACTOR, ip: null },
    );
    return { ok: true, backup, removed };
  } catch (error) {
    return recordFailure(trigger, error, directory);
  } finally {
    await release();
  }
}

/**
 * An archive as a download (the routes guard it, admins only, and send it
 * with downloadResponse), or 404 for any name the folder does not list.
 */
export async function downloadBackup(name: string): Promise<Result<{ download: Download }>> {
  const backup = (await listBackups()).find((candidate) => candidate.name === name);
  if (!backup) return refuse(404, NOT_FOUND_MESSAGE);
  const file = path.join(backupDirectory(), backup.name);
  // Recorded as the download starts (the file is then sent as it is).
  await recordBackupEvent(
    {
      action: "backup.download",
      entityType: "backup",
      entityId: backup.name,
      summary: `descargó la copia de seguridad ${backup.name} (${formatBytes(backup.sizeBytes)})`,
      after: { name: backup.name, sizeBytes: backup.sizeBytes },
    },
    currentRequester(),
  );
  return { ok: true, download: { filename: backup.name, contentType: "application/gzip", file, sizeBytes: backup.sizeBytes } };
}

/** A backup's event in the audit trail; it changes nothing else. A failure to write it is logged. */
async function recordBackupEvent(entry: AuditEntry, who: ReturnType<typeof currentRequester>) {
  try {
    await audited(async (audit) => audit(entry), who);
  } catch (error) {
    console.error(`[backup] could not record ${entry.action} of ${entry.entityId}: ${describeError(error)}`);
  }
}

/** How the screen and the API describe the setup. */
export function backupSettings() {
  const env = getEnv();
  return { directory: backupDirectory(), hour: env.BACKUP_HOUR, keep: env.BACKUP_KEEP, remoteDatabase: databaseFile() === null };
}

/**
 * The next instant after `now` when the building's clock shows `time`
 * ("03:30"). On the day summer time starts a time the clock skips (02:00 to
 * 02:59) runs an hour later.
 */
export function nextBackupTime(now: Date, time: string): Date {
  const [hours, minutes] = time.split(":");
  const hourLater = `${String((Number(hours) + 1) % 24).padStart(2, "0")}:${minutes}`;
  let day = todayInMadrid(now);
  for (;;) {
    const at = madridInstant(day, time) ?? madridInstant(day, hourLater);
    if (at && at > now) return at;
    day = addDays(day, 1);
  }
}

/** The scheduled backup of `slot` (named by it), unless another process of this folder already made it. */
export async function runScheduledBackup(slot: Date) {
  if (existsSync(path.join(backupDirectory(), backupName(slot, "scheduled")))) return null;
  const result = await createBackup("scheduled", { at: slot });
  if (!result.ok && !("failed" in result)) console.info(`[backup] scheduled backup not made: ${(result as Refusal).message}`);
  return result;
}

/**
 * One backup every day at BACKUP_HOUR (Europe/Madrid) while the process
 * runs; `now` is the clock (tests move it). Null for a remote database.
 */
export function scheduleDailyBackups({ now = () => new Date() }: { now?: () => Date } = {}) {
  if (!databaseFile()) {
    console.info("[backup] no scheduled backups: the database is remote, and its backups are the remote server's job");
    return null;
  }
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const plan = (after: Date) => {
    const slot = nextBackupTime(after, getEnv().BACKUP_HOUR);
    timer = setTimeout(() => {
      void runScheduledBackup(slot)
        .catch((error: unknown) => console.error("[backup] scheduled backup failed", error))
        .finally(() => {
          if (!stopped) plan(new Date(Math.max(now().getTime(), slot.getTime() + 1)));
        });
    }, Math.max(0, slot.getTime() - now().getTime()));
    timer.unref();
  };
  plan(now());
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
