// `npm run restore -- <archive>` (scripts/restore.ts): puts a backup made by
// backups.server.ts back, without asking anything, so a script or a person
// over SSH can run it. In order, and nothing changes until the last step:
//  1. refuses while the app runs on the data directory: a live process named
//     by <DATA_DIR>/running/<pid>.json (app/utils/data-dir-claim.server.ts),
//     or any process holding the database file open (isDatabaseInUse, which
//     opens it: SQLite then folds a WAL left by a crash into it, as any start
//     does);
//  2. reads the archive's entry list: only manifest.json, manifest.sig, app.db
//     and files and folders under uploads/ with plain names; anything else
//     (links, devices, absolute or `..` paths) refuses it; a damaged .tar.gz
//     fails here;
//  3. reads manifest.json and manifest.sig (each at most 1 MiB, in memory,
//     in the same pass) and checks the signature: an HMAC of the manifest with this installation's
//     backup key (app/utils/keys.server.ts). One it does not verify (unsigned,
//     another installation's, altered) is refused unless `--foreign`;
//  4. compares the entry list with the manifest (every file's size, none
//     missing, none added) and the total with the free disk space, before a
//     byte of data is written; then unpacks the data with no owner, no
//     setuid/setgid/sticky bits and modes 0644/0755 (never more than the
//     manifest's sizes), and checks every file's SHA-256, `PRAGMA
//     integrity_check` on app.db, and that its migrations are ones this code
//     knows (an archive from a newer version is refused);
//  5. checks the schema: a copy of app.db, migrated to this version, must
//     have exactly the tables, indexes, triggers and views that the
//     migrations make on a fresh database; and the audit trail: its chain
//     verifies with this installation's key (`--foreign`: its ids and links
//     only, and an event `audit.key` with `foreign` then marks where this
//     installation's key takes over), then the restore appends its own signed
//     event, `backup.restore`;
//  6. moves the data directory aside, to `<DATA_DIR>.before-restore-<time>`
//     beside it (and the database file with it when DATABASE_URL puts it
//     elsewhere), puts the unpacked data in its place and moves the backups
//     folder back in when it lives inside the data directory (it holds the
//     archives, not data that a restore replaces). The rest of the old
//     directory (session secret, mail outbox) stays in the aside copy.
// After the swap the chain's published head (KEYS_DIR/audit-head.json) is the
// restore's event. The next start applies the migrations that are newer than
// the archive.
// The answer's messages are English: they are for the operator's terminal.
import { createReadStream, existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import * as tar from "tar";
import { checkDatabaseFile, compareSchemaWithMigrations, isDatabaseInUse, openAuditTrailOf } from "~/models/database-snapshot.server";
import { liveDataDirClaims } from "~/utils/data-dir-claim.server";
import { getEnv } from "~/utils/env.server";
import { auditChainKey, backupSigningKey, databaseIdentity, replacePublishedHead } from "~/utils/keys.server";
import { checkAuditChain, KEY_ACTION, RESTORE_ACTION } from "./audit-chain.server";
import { storedEvent, SYSTEM_ACTOR } from "./audit.server";
import {
  backupDirectory,
  checkManifestSignature,
  DATABASE_FILE,
  databaseFile,
  describeFiles,
  knownMigrations,
  MANIFEST_FILE,
  ManifestSchema,
  SIGNATURE_FILE,
  SignatureSchema,
  UPLOADS_DIRECTORY,
  type Manifest,
  type Signature,
} from "./backups.server";

export type RestoreResult =
  | { ok: true; manifest: Manifest; dataDir: string; databaseFile: string; aside: string | null; foreign: boolean; signed: boolean }
  | { ok: false; message: string };

const refused = (message: string): RestoreResult => ({ ok: false, message });
const NOTHING_CHANGED = "Nothing was changed.";

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
/** manifest.json and manifest.sig are small; anything bigger is not one. */
const MAX_MANIFEST_BYTES = 1024 * 1024;
/** Free space left on the disk after the unpacked data (and the copy the schema check migrates). */
const FREE_SPACE_MARGIN_BYTES = 64 * 1024 * 1024;

/** Whether an archive entry is one a backup has: manifest.json, manifest.sig, app.db, or plain names under uploads/. */
function isBackupEntry(entryPath: string, type: string) {
  const clean = entryPath.replace(/\/$/, "");
  if (clean === MANIFEST_FILE || clean === SIGNATURE_FILE || clean === DATABASE_FILE) return type === "File";
  const parts = clean.split("/");
  return parts[0] === UPLOADS_DIRECTORY && parts.every((part) => NAME.test(part)) && (type === "File" || type === "Directory");
}

const cleanPath = (entryPath: string) => entryPath.replace(/\/$/, "");

function messageOf(error: unknown) {
  return (error as Error)?.message || String(error);
}

function mebibytes(bytes: number) {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

type Listed = { path: string; type: string; size: number };

/**
 * Unpacks the entries `wanted` lets through into `staging`: no owner (the
 * process's), modes 0644 for files and 0755 for folders (no setuid, setgid
 * or sticky bit, whatever the archive says), never more bytes than `budget`.
 */
async function extract(archive: string, staging: string, wanted: (entryPath: string) => boolean, budget: number) {
  let written = 0;
  let overBudget = false;
  await tar.x({
    file: archive,
    cwd: staging,
    strict: true,
    preserveOwner: false,
    noMtime: true,
    filter: (entryPath, entry) => {
      if (!("type" in entry) || !isBackupEntry(entryPath, entry.type) || !wanted(cleanPath(entryPath))) return false;
      written += entry.size ?? 0;
      if (written > budget) {
        overBudget = true;
        return false;
      }
      entry.mode = entry.type === "Directory" ? 0o755 : 0o644;
      return true;
    },
  });
  if (overBudget) throw new Error(`the archive holds more than the ${budget} bytes its manifest lists`);
  // Belt and braces: nothing unpacked keeps more than 0644 / 0755.
  const walk = async (dir: string) => {
    for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        await fs.chmod(file, 0o755);
        await walk(file);
      } else if (entry.isFile()) await fs.chmod(file, 0o644);
      else throw new Error(`${file} is neither a file nor a folder`);
    }
  };
  await walk(staging);
}

type Checked = { manifest: Manifest; signed: boolean };

/** Steps 2 to 4: unpacks `archive` into `staging` and checks it; an error message, or the manifest. */
async function unpackAndCheck(archive: string, staging: string, { foreign }: { foreign: boolean }): Promise<Checked | { message: string }> {
  const strange: string[] = [];
  const listed: Listed[] = [];
  // One pass reads the entry list and, in memory, the manifest and its signature (each at most 1 MiB).
  const small = new Map<string, Buffer[]>();
  try {
    // The whole gzip stream is read through zlib here, its checksum at the end included: tar
    // stops at its end-of-archive blocks and may never see a damaged trailer.
    const lister = tar.t({
      strict: true,
      onReadEntry: (entry) => {
        const entryPath = cleanPath(entry.path);
        if (!isBackupEntry(entry.path, entry.type)) strange.push(`${entry.path} (${entry.type})`);
        else listed.push({ path: entryPath, type: entry.type, size: entry.size ?? 0 });
        if ((entryPath === MANIFEST_FILE || entryPath === SIGNATURE_FILE) && (entry.size ?? 0) <= MAX_MANIFEST_BYTES && !small.has(entryPath)) {
          const chunks: Buffer[] = [];
          small.set(entryPath, chunks);
          entry.on("data", (chunk: Buffer) => chunks.push(chunk));
        }
      },
    });
    await pipeline(createReadStream(archive), createGunzip(), lister as unknown as NodeJS.WritableStream);
  } catch (error) {
    return { message: `The archive is damaged or is not a .tar.gz backup (${messageOf(error)}). ${NOTHING_CHANGED}` };
  }
  if (strange.length > 0) return { message: `The archive holds entries a backup never has: ${strange.slice(0, 5).join(", ")}. ${NOTHING_CHANGED}` };
  const paths = listed.map((entry) => entry.path);
  if (new Set(paths).size !== paths.length) return { message: `The archive holds an entry twice. ${NOTHING_CHANGED}` };
  const oversized = listed.find((entry) => (entry.path === MANIFEST_FILE || entry.path === SIGNATURE_FILE) && entry.size > MAX_MANIFEST_BYTES);
  if (oversized) return { message: `The archive's ${oversized.path} is ${mebibytes(oversized.size)}: not a backup's. ${NOTHING_CHANGED}` };

  await fs.mkdir(staging, { recursive: true, mode: 0o700 });
  let manifest: Manifest;
  const manifestBytes = Buffer.concat(small.get(MANIFEST_FILE) ?? []);
  try {
    if (!small.has(MANIFEST_FILE)) throw new Error(`no ${MANIFEST_FILE}`);
    manifest = ManifestSchema.parse(JSON.parse(manifestBytes.toString("utf8")));
  } catch (error) {
    return { message: `The archive has no valid ${MANIFEST_FILE}: it is not a backup made by npm run backup (${messageOf(error).split("\n")[0]}). ${NOTHING_CHANGED}` };
  }
  let signature: Signature | null = null;
  if (small.has(SIGNATURE_FILE)) {
    let text: unknown = null;
    try {
      text = JSON.parse(Buffer.concat(small.get(SIGNATURE_FILE)!).toString("utf8"));
    } catch {
      // not a signature: unsigned
    }
    const parsed = SignatureSchema.safeParse(text);
    signature = parsed.success ? parsed.data : null;
  }
  const verdict = checkManifestSignature(manifestBytes, signature);
  if (verdict !== "ok" && !foreign) {
    const own = backupSigningKey({ create: false })?.keyId;
    const reason = {
      unsigned: `The archive is not signed: it was not made by npm run backup of this version (or was made before archives were signed).`,
      "other-key": `The archive was signed by another installation (key ${signature?.keyId}; this one's is ${own}).`,
      bad: `The archive's signature does not match its manifest: the archive was changed after it was made.`,
      "no-key": `This installation has no audit key (AUDIT_KEY, or KEYS_DIR/audit-key) to check the archive's signature with: copy the key folder from the machine that made it, or set AUDIT_KEY as it had it.`,
    }[verdict];
    return { message: `${reason} To restore an archive you trust from another installation, run the restore again with --foreign. ${NOTHING_CHANGED}` };
  }

  // Before any data is written: the entry list must be the manifest's, and fit on the disk.
  const problems: string[] = [];
  const listedFiles = new Map(listed.filter((entry) => entry.type === "File" && entry.path !== MANIFEST_FILE && entry.path !== SIGNATURE_FILE).map((entry) => [entry.path, entry]));
  for (const expected of manifest.files) {
    const entry = listedFiles.get(expected.path);
    listedFiles.delete(expected.path);
    if (!entry) problems.push(`${expected.path} is missing`);
    else if (entry.size !== expected.size) problems.push(`${expected.path} does not match its checksum`);
  }
  for (const extra of listedFiles.keys()) problems.push(`${extra} is not in the manifest`);
  if (!manifest.files.some((file) => file.path === DATABASE_FILE)) problems.push(`${DATABASE_FILE} is not in the manifest`);
  if (problems.length > 0) return { message: `The archive is damaged: ${problems.slice(0, 5).join("; ")}. ${NOTHING_CHANGED}` };
  const total = manifest.files.reduce((sum, file) => sum + file.size, 0);
  const databaseSize = manifest.files.find((file) => file.path === DATABASE_FILE)!.size;
  const disk = await fs.statfs(staging);
  const free = disk.bavail * disk.bsize;
  // The data, and the copy of the database the schema check migrates.
  const needed = total + databaseSize + FREE_SPACE_MARGIN_BYTES;
  if (needed > free) {
    return { message: `The archive unpacks to ${mebibytes(total)} and its check needs ${mebibytes(needed)} free, but only ${mebibytes(free)} is free beside the data directory. ${NOTHING_CHANGED}` };
  }

  try {
    await extract(archive, staging, (entryPath) => entryPath !== MANIFEST_FILE && entryPath !== SIGNATURE_FILE, total);
  } catch (error) {
    return { message: `The archive could not be unpacked (${messageOf(error)}). ${NOTHING_CHANGED}` };
  }
  const found = new Map(
    (await describeFiles(staging)).filter((file) => file.path !== MANIFEST_FILE && file.path !== SIGNATURE_FILE).map((file) => [file.path, file]),
  );
  for (const expected of manifest.files) {
    const actual = found.get(expected.path);
    found.delete(expected.path);
    if (!actual) problems.push(`${expected.path} is missing`);
    else if (actual.size !== expected.size || actual.sha256 !== expected.sha256) problems.push(`${expected.path} does not match its checksum`);
  }
  for (const extra of found.keys()) problems.push(`${extra} is not in the manifest`);
  if (problems.length > 0) return { message: `The archive is damaged: ${problems.slice(0, 5).join("; ")}. ${NOTHING_CHANGED}` };

  let check;
  try {
    check = await checkDatabaseFile(path.join(staging, DATABASE_FILE));
  } catch (error) {
    return { message: `The archive's database cannot be opened (${messageOf(error)}). ${NOTHING_CHANGED}` };
  }
  if (check.integrity.join("\n") !== "ok") {
    return { message: `The archive's database fails PRAGMA integrity_check: ${check.integrity.slice(0, 3).join("; ")}. ${NOTHING_CHANGED}` };
  }
  const newestKnown = Math.max(...knownMigrations().map((migration) => migration.when));
  if (check.lastMigrationAt === null) return { message: `The archive's database has no migrations applied: it is not this app's database. ${NOTHING_CHANGED}` };
  if (check.lastMigrationAt > newestKnown) {
    return {
      message: `The archive was made by a newer version of the app (${manifest.appVersion}, migration ${manifest.migration?.tag ?? check.lastMigrationAt}) than this one knows. Update the app first. ${NOTHING_CHANGED}`,
    };
  }
  return { manifest, signed: verdict === "ok" };
}

/** Step 5, the schema: what the migrations make, neither less nor more. */
async function checkSchema(databaseFile: string, scratchDir: string): Promise<string | null> {
  let comparison;
  try {
    comparison = await compareSchemaWithMigrations(databaseFile, scratchDir, path.resolve("drizzle"));
  } catch (error) {
    return `The archive's database schema could not be checked (${messageOf(error)}). ${NOTHING_CHANGED}`;
  }
  if (comparison.migrationError) return `The archive's database does not take this version's migrations (${comparison.migrationError}): its schema is not this app's. ${NOTHING_CHANGED}`;
  const differences = [
    ...comparison.missing.map((name) => `no ${name}`),
    ...comparison.extra.map((name) => `an extra ${name}`),
    ...comparison.differing.map((name) => `a different ${name}`),
  ];
  if (differences.length === 0) return null;
  return `The archive's database schema is not the one the migrations make: ${differences.slice(0, 8).join(", ")}${differences.length > 8 ? ", …" : ""}. ${NOTHING_CHANGED}`;
}

/**
 * Step 5, the trail: the archive's chain verifies (with this installation's
 * key; links only when `foreign`), then the restore's own event is appended,
 * signed. Answers the new head, or a refusal.
 */
async function checkTrailAndRecord(
  databaseFile: string,
  { archive, manifest, foreign }: { archive: string; manifest: Manifest; foreign: boolean },
): Promise<{ head: { id: number; hash: string } | null } | { message: string }> {
  const trail = await openAuditTrailOf(databaseFile);
  if (!trail) return { head: null };
  try {
    const key = auditChainKey({ create: false });
    if (!foreign && !key) return { message: `This installation has no audit key to verify the archive's audit trail with. ${NOTHING_CHANGED}` };
    const check = await checkAuditChain(trail, { key: key ?? Buffer.alloc(32), published: null, linksOnly: foreign });
    if (!check.ok) {
      return { message: `The archive's audit trail does not verify: it breaks at event ${check.firstBadId} (${check.problem}). ${NOTHING_CHANGED}` };
    }
    // The key is made only now, for a foreign archive on a machine that had none: every check has passed.
    const signingKey = key ?? auditChainKey({ create: true })!;
    if (foreign) {
      // This installation's key signs from here on; the verification checks only the links before it.
      await trail.append(
        storedEvent(
          {
            action: KEY_ACTION,
            entityType: "audit",
            entityId: null,
            summary: `empezó a firmar la auditoría con su clave tras el evento ${check.head?.id ?? 0}, de otra instalación`,
            after: { foreign: true, archive: path.basename(archive), foreignHeadId: check.head?.id ?? null, foreignHeadHash: check.head?.hash ?? null },
          },
          SYSTEM_ACTOR,
          null,
        ),
        signingKey,
      );
    }
    const event = await trail.append(
      storedEvent(
        {
          action: RESTORE_ACTION,
          entityType: "backup",
          entityId: path.basename(archive),
          summary: `restauró la copia de seguridad ${path.basename(archive)}${foreign ? " de otra instalación" : ""}`,
          after: {
            archive: path.basename(archive),
            createdAt: manifest.createdAt,
            trigger: manifest.trigger,
            appVersion: manifest.appVersion,
            migration: manifest.migration?.tag ?? null,
            foreign,
            restoredHeadId: check.head?.id ?? null,
            restoredHeadHash: check.head?.hash ?? null,
          },
        },
        SYSTEM_ACTOR,
        null,
      ),
      signingKey,
    );
    return { head: { id: event.id, hash: event.hash } };
  } finally {
    await trail.close();
  }
}

function isInside(parent: string, child: string) {
  const relative = path.relative(parent, child);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}

/**
 * Restores `archive` (a path) over the configured DATA_DIR and database.
 * `foreign`: the archive need not be signed by this installation's key (one
 * from another installation); its chain is then checked for its links only,
 * and the restore's own event anchors this installation's key after it.
 */
export async function restoreBackup(archive: string, { now = new Date(), foreign = false }: { now?: Date; foreign?: boolean } = {}): Promise<RestoreResult> {
  const database = databaseFile();
  if (!database) return refused(`DATABASE_URL is not a file: database: a remote database is restored with its server's own tools. ${NOTHING_CHANGED}`);
  const stat = await fs.stat(archive).catch(() => null);
  if (!stat?.isFile()) return refused(`No archive at ${archive}.`);

  const dataDir = path.resolve(getEnv().DATA_DIR);
  const inUse = await whoUsesTheData(dataDir, database);
  if (inUse) return refused(`${inUse} ${NOTHING_CHANGED}`);

  const stamp = now.toISOString().replace(/[:.]/g, "-");
  const staging = `${dataDir}.restoring-${stamp}`;
  const aside = `${dataDir}.before-restore-${stamp}`;
  await fs.mkdir(path.dirname(dataDir), { recursive: true });
  const discard = () => fs.rm(staging, { recursive: true, force: true });
  const checked = await unpackAndCheck(archive, staging, { foreign });
  if ("message" in checked) {
    await discard();
    return refused(checked.message);
  }
  const stagedDatabase = path.join(staging, DATABASE_FILE);
  const schemaProblem = await checkSchema(stagedDatabase, `${dataDir}.restore-check-${stamp}`);
  if (schemaProblem) {
    await discard();
    return refused(schemaProblem);
  }
  // The app may have been started while the archive was checked.
  const startedMeanwhile = await whoUsesTheData(dataDir, database);
  if (startedMeanwhile) {
    await discard();
    return refused(`${startedMeanwhile} ${NOTHING_CHANGED}`);
  }
  const recorded = await checkTrailAndRecord(stagedDatabase, { archive, manifest: checked.manifest, foreign }).catch((error: unknown) => ({
    message: `The archive's audit trail could not be checked (${messageOf(error)}). ${NOTHING_CHANGED}`,
  }));
  if ("message" in recorded) {
    await discard();
    return refused(recorded.message);
  }
  for (const leftover of [MANIFEST_FILE, SIGNATURE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`]) await fs.rm(path.join(staging, leftover), { force: true });

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
    await discard();
    return refused(`The restored data could not be put in place (${messageOf(error)}); what was moved has been moved back.`);
  }
  // The chain goes back to the archive's (and the restore's event): so does its published head.
  await replacePublishedHead(recorded.head, databaseIdentity(`file:${database}`)).catch((error: unknown) =>
    console.error(`The audit chain's head could not be published (${messageOf(error)}): audit:verify may report the restored chain as truncated until the next change.`),
  );
  return { ok: true, manifest: checked.manifest, dataDir, databaseFile: database, aside: movedAside ? aside : null, foreign, signed: checked.signed };
}
