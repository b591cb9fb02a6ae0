// `npm run restore -- <archive>` (scripts/restore.ts): puts a backup made by
// backups.server.ts back, without asking anything, so a script or a person
// over SSH can run it. In order, and nothing changes until the last step:
//  1. refuses while the app runs on the data directory: a live process named
//     by <DATA_DIR>/running/<pid>.json (app/utils/data-dir-claim.server.ts),
//     or any process holding the database file open (isDatabaseInUse, which
//     opens it: SQLite then folds a WAL left by a crash into it, as any start
//     does);
//  2. reads the archive's entry list: only manifest.json, app.db and files
//     and folders under uploads/ with plain names; anything else (links,
//     absolute or `..` paths) refuses it; a damaged .tar.gz fails here;
//  3. unpacks it next to the data directory and checks every file's size and
//     SHA-256 against the manifest (no file missing, none added),
//     `PRAGMA integrity_check` on app.db, and that its migrations are ones
//     this code knows (an archive from a newer version is refused);
//  4. moves the data directory aside, to `<DATA_DIR>.before-restore-<time>`
//     beside it (and the database file with it when DATABASE_URL puts it
//     elsewhere), puts the unpacked data in its place and moves the backups
//     folder back in when it lives inside the data directory (it holds the
//     archives, not data that a restore replaces). The rest of the old
//     directory (session secret, mail outbox) stays in the aside copy.
// The next start applies the migrations that are newer than the archive.
// The answer's messages are English: they are for the operator's terminal.
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import * as tar from "tar";
import { checkDatabaseFile, isDatabaseInUse } from "~/models/database-snapshot.server";
import { liveDataDirClaims } from "~/utils/data-dir-claim.server";
import { getEnv } from "~/utils/env.server";
import {
  backupDirectory,
  DATABASE_FILE,
  databaseFile,
  describeFiles,
  knownMigrations,
  MANIFEST_FILE,
  ManifestSchema,
  UPLOADS_DIRECTORY,
  type Manifest,
} from "./backups.server";

export type RestoreResult =
  | { ok: true; manifest: Manifest; dataDir: string; databaseFile: string; aside: string | null }
  | { ok: false; message: string };

const refused = (message: string): RestoreResult => ({ ok: false, message });

/** Why the data directory cannot be replaced now (the app runs on it), or null. */
export async function whoUsesTheData(dataDir: string, database: string): Promise<string | null> {
  const claims = liveDataDirClaims(dataDir);
  if (claims.length > 0) {
    const list = claims.map((claim) => `pid ${claim.pid}${claim.port ? `, port ${claim.port}` : ""}, started ${claim.startedAt}`).join("; ");
    return `The app is running on ${dataDir} (${list}). Stop it first, then run the restore again. (If no such process is the app, delete ${claims.map((claim) => claim.file).join(", ")}.)`;
  }
  if (await isDatabaseInUse(database)) {
    return `The database ${database} is open in another process (the app, a separate access service, a sqlite3 shell). Stop it first, then run the restore again.`;
  }
  return null;
}

const NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/** Whether an archive entry is one a backup has: manifest.json, app.db, or plain names under uploads/. */
function isBackupEntry(entryPath: string, type: string) {
  const clean = entryPath.replace(/\/$/, "");
  if (clean === MANIFEST_FILE || clean === DATABASE_FILE) return type === "File";
  const parts = clean.split("/");
  return parts[0] === UPLOADS_DIRECTORY && parts.every((part) => NAME.test(part)) && (type === "File" || type === "Directory");
}

function messageOf(error: unknown) {
  return (error as Error)?.message || String(error);
}

/** Steps 2 and 3: unpacks `archive` into `staging` and checks it; an error message, or the manifest. */
async function unpackAndCheck(archive: string, staging: string): Promise<{ manifest: Manifest } | { message: string }> {
  const strange: string[] = [];
  try {
    await tar.t({
      file: archive,
      strict: true,
      onReadEntry: (entry) => {
        if (!isBackupEntry(entry.path, entry.type)) strange.push(`${entry.path} (${entry.type})`);
      },
    });
  } catch (error) {
    return { message: `The archive is damaged or is not a .tar.gz backup (${messageOf(error)}). Nothing was changed.` };
  }
  if (strange.length > 0) return { message: `The archive holds entries a backup never has: ${strange.slice(0, 5).join(", ")}. Nothing was changed.` };

  await fs.mkdir(staging, { recursive: true });
  try {
    await tar.x({ file: archive, cwd: staging, strict: true, filter: (entryPath, entry) => "type" in entry && isBackupEntry(entryPath, entry.type) });
  } catch (error) {
    return { message: `The archive could not be unpacked (${messageOf(error)}). Nothing was changed.` };
  }

  let manifest: Manifest;
  try {
    manifest = ManifestSchema.parse(JSON.parse(await fs.readFile(path.join(staging, MANIFEST_FILE), "utf8")));
  } catch (error) {
    return { message: `The archive has no valid ${MANIFEST_FILE}: it is not a backup made by npm run backup (${messageOf(error).split("\n")[0]}). Nothing was changed.` };
  }
  const found = new Map((await describeFiles(staging)).filter((file) => file.path !== MANIFEST_FILE).map((file) => [file.path, file]));
  const problems: string[] = [];
  for (const expected of manifest.files) {
    const actual = found.get(expected.path);
    found.delete(expected.path);
    if (!actual) problems.push(`${expected.path} is missing`);
    else if (actual.size !== expected.size || actual.sha256 !== expected.sha256) problems.push(`${expected.path} does not match its checksum`);
  }
  for (const extra of found.keys()) problems.push(`${extra} is not in the manifest`);
  if (!manifest.files.some((file) => file.path === DATABASE_FILE)) problems.push(`${DATABASE_FILE} is not in the manifest`);
  if (problems.length > 0) return { message: `The archive is damaged: ${problems.slice(0, 5).join("; ")}. Nothing was changed.` };

  let check;
  try {
    check = await checkDatabaseFile(path.join(staging, DATABASE_FILE));
  } catch (error) {
    return { message: `The archive's database cannot be opened (${messageOf(error)}). Nothing was changed.` };
  }
  if (check.integrity.join("\n") !== "ok") {
    return { message: `The archive's database fails PRAGMA integrity_check: ${check.integrity.slice(0, 3).join("; ")}. Nothing was changed.` };
  }
  const newestKnown = Math.max(...knownMigrations().map((migration) => migration.when));
  if (check.lastMigrationAt === null) return { message: `The archive's database has no migrations applied: it is not this app's database. Nothing was changed.` };
  if (check.lastMigrationAt > newestKnown) {
    return {
      message: `The archive was made by a newer version of the app (${manifest.appVersion}, migration ${manifest.migration?.tag ?? check.lastMigrationAt}) than this one knows. Update the app first. Nothing was changed.`,
    };
  }
  return { manifest };
}

function isInside(parent: string, child: string) {
  const relative = path.relative(parent, child);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}

/** Restores `archive` (a path) over the configured DATA_DIR and database. */
export async function restoreBackup(archive: string, { now = new Date() }: { now?: Date } = {}): Promise<RestoreResult> {
  const database = databaseFile();
  if (!database) return refused("DATABASE_URL is not a file: database: a remote database is restored with its server's own tools. Nothing was changed.");
  const stat = await fs.stat(archive).catch(() => null);
  if (!stat?.isFile()) return refused(`No archive at ${archive}.`);

  const dataDir = path.resolve(getEnv().DATA_DIR);
  const inUse = await whoUsesTheData(dataDir, database);
  if (inUse) return refused(`${inUse} Nothing was changed.`);

  const stamp = now.toISOString().replace(/[:.]/g, "-");
  const staging = `${dataDir}.restoring-${stamp}`;
  const aside = `${dataDir}.before-restore-${stamp}`;
  await fs.mkdir(path.dirname(dataDir), { recursive: true });
  const checked = await unpackAndCheck(archive, staging);
  if ("message" in checked) {
    await fs.rm(staging, { recursive: true, force: true });
    return refused(checked.message);
  }
  // The app may have been started while the archive was checked.
  const startedMeanwhile = await whoUsesTheData(dataDir, database);
  if (startedMeanwhile) {
    await fs.rm(staging, { recursive: true, force: true });
    return refused(`${startedMeanwhile} Nothing was changed.`);
  }

  await fs.rm(path.join(staging, MANIFEST_FILE));
  const backups = backupDirectory();
  const moved: Array<[from: string, to: string]> = [];
  const move = async (from: string, to: string) => {
    await fs.mkdir(path.dirname(to), { recursive: true });
    await fs.rename(from, to);
    moved.push([from, to]);
  };
  let movedAside = false;
  try {
    if (existsSync(dataDir)) {
      await move(dataDir, aside);
      movedAside = true;
    }
    if (!isInside(dataDir, database)) {
      for (const suffix of ["", "-wal", "-shm", "-journal"]) {
        if (!existsSync(database + suffix)) continue;
        await move(database + suffix, path.join(aside, path.basename(database) + suffix));
        movedAside = true;
      }
    }
    await move(staging, dataDir);
    const restoredDatabase = path.join(dataDir, DATABASE_FILE);
    if (restoredDatabase !== database) await move(restoredDatabase, database);
    if (isInside(dataDir, backups) && existsSync(path.join(aside, path.relative(dataDir, backups)))) {
      await move(path.join(aside, path.relative(dataDir, backups)), backups);
    }
  } catch (error) {
    for (const [from, to] of moved.reverse()) await fs.rename(to, from).catch(() => {});
    await fs.rm(staging, { recursive: true, force: true });
    return refused(`The restored data could not be put in place (${messageOf(error)}); what was moved has been moved back.`);
  }
  return { ok: true, manifest: checked.manifest, dataDir, databaseFile: database, aside: movedAside ? aside : null };
}
